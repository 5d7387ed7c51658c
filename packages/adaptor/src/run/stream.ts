import type { AgentEvent } from "../events/agent-event.js";
import type { EventQueue } from "../events/event-queue.js";
import type { Result } from "../result/result.js";

/**
 * A run in flight: an `AsyncIterable` of {@link AgentEvent}s (`run-finished` always last) and
 * the verdict from {@link result}. Returned at once by `agent.stream()`, which never throws;
 * setup failures arrive through `result()`.
 *
 * Iterate once. Breaking out of the loop before `run-finished` cancels the run.
 */
export class Stream implements AsyncIterable<AgentEvent> {
  /** UUID v7 of the run. */
  readonly runId: string;
  readonly #queue: EventQueue;
  readonly #result: Promise<Result>;
  readonly #controller: AbortController;
  #iterated = false;

  /** @internal Streams are made by `Agent.stream()`. */
  constructor(runId: string, queue: EventQueue, controller: AbortController, result: Promise<Result>) {
    this.runId = runId;
    this.#queue = queue;
    this.#controller = controller;
    this.#result = result;
    // The verdict is always observable through result(); never an unhandled rejection.
    result.catch(() => undefined);
  }

  /**
   * The verdict, repeatable (the same promise every call): resolves the {@link Result}; rejects
   * with a `RunError` for a business failure, else with an ordinary error (cause chain kept).
   */
  result(): Promise<Result> {
    return this.#result;
  }

  /**
   * Cancels the run: the CLI is interrupted, then terminated. Idempotent. The verdict rejects with
   * `reason` (default: a `DOMException` named `"AbortError"`), an infrastructure error that does not
   * match `ErrRunCancelled`.
   */
  cancel(reason?: unknown): void {
    if (this.#controller.signal.aborted) return;
    this.#controller.abort(reason ?? new DOMException("The run was cancelled", "AbortError"));
  }

  /** Yields the run's events in order. A second iteration throws `TypeError`. */
  [Symbol.asyncIterator](): AsyncIterator<AgentEvent> {
    if (this.#iterated) throw new TypeError(`stream ${this.runId}: events can be iterated once`);
    this.#iterated = true;
    const queue = this.#queue;
    let finished = false;
    let stopped = false;
    return {
      next: () => {
        if (stopped) return Promise.resolve({ done: true, value: undefined });
        // Fast path without a generator: one settled promise per buffered event.
        const event = queue.take();
        if (event) {
          if (event.type === "run-finished") finished = true;
          return Promise.resolve({ done: false, value: event });
        }
        return queue.next().then((next) => {
          if (stopped) return { done: true, value: undefined };
          if (!next.done && next.value.type === "run-finished") finished = true;
          return next;
        });
      },
      return: () => {
        if (!finished) this.cancel(new DOMException("The stream consumer stopped reading", "AbortError"));
        stopped = true;
        return Promise.resolve({ done: true, value: undefined });
      },
    };
  }
}
