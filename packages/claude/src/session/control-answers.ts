import { DriverError, ErrCode } from "@adaptor/errors";

/**
 * The `response` object of a success answer (`undefined` when it had none), or `null` when the
 * turn ended before the CLI answered.
 */
type Answer = Record<string, unknown> | undefined | null;

/**
 * The driver's own control requests of one turn awaiting the CLI's `control_response`: each
 * settles with its answer's `response` object (an `error` answer rejects with a DriverError
 * `DRIVER` naming the request), or with `null` when the turn ends without one.
 */
export class ControlAnswers {
  readonly #pending = new Map<
    string,
    { op: string; resolve: (answer: Answer) => void; reject: (error: unknown) => void; onSuccess?: (() => void) | undefined }
  >();

  /**
   * A promise for the answer to `requestId` (`op` names it in errors). `onSuccess` runs as a
   * success answer is read, before any later line of the CLI is handled.
   */
  wait(requestId: string, op: string, onSuccess?: () => void): Promise<Answer> {
    return new Promise<Answer>((resolve, reject) => this.#pending.set(requestId, { op, resolve, reject, onSuccess }));
  }

  /** How many requests still wait for their answer. */
  get waiting(): number {
    return this.#pending.size;
  }

  /** Settles the waiter a `control_response` line answers; other lines are ignored. */
  settle(message: Record<string, unknown>): void {
    const response = message.response as { subtype?: unknown; request_id?: unknown; error?: unknown; response?: unknown } | undefined;
    const waiter = typeof response?.request_id === "string" ? this.#pending.get(response.request_id) : undefined;
    if (!waiter || typeof response?.request_id !== "string") return;
    this.#pending.delete(response.request_id);
    if (response.subtype === "error") {
      waiter.reject(new DriverError({ op: waiter.op, device: "claude", code: ErrCode.Driver, cause: String(response.error) }));
    } else {
      waiter.onSuccess?.();
      waiter.resolve(isRecord(response.response) ? response.response : undefined);
    }
  }

  /** The turn ended: requests still unanswered resolve `null` (they were written; the turn is over). */
  end(): void {
    for (const waiter of this.#pending.values()) waiter.resolve(null);
    this.#pending.clear();
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
