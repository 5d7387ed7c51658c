import type { JsonValue } from "@adaptor/sessionrecorder";

/**
 * The newest run format this version of the fleet writes and runs. Format 1: a text prompt (the
 * run row's `prompt`). Format 2: a prompt of parts (`prompt_parts`, text and images), which a
 * worker of format 1 would run as its text alone. A change to what a run carries that a worker of
 * an earlier version would run differently (not refuse) takes the next number.
 */
export const RUN_FORMAT = 2;

/**
 * The pg-boss queue of runs of `format`: format 1 keeps the queue's own name (the only one
 * workers of versions before run formats poll), format n > 1 is `<queue>.format-<n>`. A worker
 * polls the queues of its format and the earlier ones, never a later one, so no run reaches a
 * worker that would run it unfaithfully.
 */
export function formatQueue(queue: string, format: number): string {
  return format === 1 ? queue : `${queue}.format-${format}`;
}

/** The queues a host of run format `format` serves, earliest first. */
export function formatQueues(queue: string, format: number): string[] {
  return Array.from({ length: format }, (_, i) => formatQueue(queue, i + 1));
}

/** The run format a prompt needs: 1 for text (or parts of text only), 2 once a part is an image. */
export function promptFormat(parts: readonly JsonValue[] | undefined): number {
  return parts?.some((part) => (part as { type?: unknown }).type === "image") ? 2 : 1;
}
