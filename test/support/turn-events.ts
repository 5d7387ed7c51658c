import { RunError, type AgentEvent, type Stream } from "adaptor";

/** Drains `stream`, returning its events in order. */
export async function drain(stream: Stream): Promise<AgentEvent[]> {
  const events: AgentEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

/** The pid of the CLI process a run used: the one it spawned, or the reused one its notice names. */
export function pidOf(events: readonly AgentEvent[]): number | undefined {
  for (const event of events) {
    if (event.type === "process" && event.kind === "spawn") return event.pid;
    if (event.type === "notice" && event.message === "process reused") return event.data?.pid as number;
  }
  return undefined;
}

/**
 * Drains `stream`, running `during()` at each `approval-request` (the turn is then certainly still
 * running, waiting for the answer) before approving it; returns the events in order.
 */
export async function drainApproving(stream: Stream, during: () => Promise<unknown>): Promise<AgentEvent[]> {
  const events: AgentEvent[] = [];
  for await (const event of stream) {
    events.push(event);
    if (event.type === "approval-request") {
      await during();
      event.request.approve();
    }
  }
  return events;
}

/** What {@link interruptOutcome} saw: what `interrupt()` settled with, and the run's error. */
export interface InterruptOutcome {
  /** What `interrupt()` resolved with, or `{ rejected }` with its rejection. */
  readonly taken: unknown;
  /** What `result()` rejected with; undefined when it resolved. */
  readonly error: unknown;
}

/** Drains `stream`, calling `interrupt()` at the first event `when` picks; returns how both ended. */
export async function interruptOutcome(stream: Stream, when: (event: AgentEvent) => boolean): Promise<InterruptOutcome> {
  let taken: Promise<unknown> | undefined;
  for await (const event of stream) {
    if (!taken && when(event)) taken = stream.interrupt().catch((error: unknown) => ({ rejected: error }));
  }
  const error = await stream.result().then(
    () => undefined,
    (reason: unknown) => reason,
  );
  return { taken: await taken, error };
}

/** Drains `stream` and returns its events with the RunError its verdict rejects with; throws when the verdict is anything else. */
export async function drainStopped(stream: Stream): Promise<{ events: AgentEvent[]; error: RunError }> {
  const events = await drain(stream);
  const error = await stream.result().then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof RunError)) throw new Error(`expected a RunError, got ${String(error)}`);
  return { events, error };
}
