/** One encoded SSE event of a run, as kept in the replay buffer. */
export interface Frame {
  /** The SSE `id`: the event sequence (`raw`) or a frame counter (`ag-ui`); strictly increasing per run. */
  readonly id: number;
  /** The encoded SSE event, ending with its blank line. */
  readonly text: string;
}

/** Encodes one SSE event: `id`, optional `event` name, and one `data` line of JSON (which never holds a raw line break). */
export function sseEvent(data: unknown, id?: number, event?: string): string {
  return `${id !== undefined ? `id: ${id}\n` : ""}${event !== undefined ? `event: ${event}\n` : ""}data: ${JSON.stringify(data)}\n\n`;
}
