import { AsyncLocalStorage } from "node:async_hooks";
import { format } from "node:util";

/** Where the ACP SDK's console output goes for one connection. */
export interface SdkLogSink {
  /** One console call of the SDK (`console.error(...)` and the like), with its level. */
  write(level: string, args: readonly unknown[]): void;
}

const LEVELS = ["error", "warn", "log", "info", "debug"] as const;
const scope = new AsyncLocalStorage<SdkLogSink>();
let installed = false;

/**
 * Runs `connect` so that whatever the ACP SDK writes with `console.*` from the connection it
 * makes (its receive loop and handlers run in the async context of `connect`) goes to `sink`
 * instead of the host's console. The SDK has no logger hook: `console`'s methods are wrapped once,
 * and the wrapper passes every call made outside such a connection to the method it replaced.
 */
export function withSdkLog<T>(sink: SdkLogSink, connect: () => T): T {
  if (!installed) {
    installed = true;
    for (const level of LEVELS) {
      const original = console[level];
      console[level] = function (this: Console, ...args: unknown[]): void {
        const routed = scope.getStore();
        if (routed) routed.write(level, args);
        else original.apply(this, args);
      };
    }
  }
  return scope.run(sink, connect);
}

/** Longest SDK log line kept, in characters. */
const MAX_LINE_CHARS = 500;

/**
 * A bounded {@link SdkLogSink}: the first `limit` lines of each window go to `emit` (each cut at
 * 500 characters), later ones are only counted; {@link takeDropped} returns the count and opens a
 * new window. Memory stays constant whatever the agent makes the SDK log.
 */
export class BoundedSdkLog implements SdkLogSink {
  readonly #limit: number;
  readonly #emit: (level: string, text: string) => void;
  #written = 0;
  #dropped = 0;

  /** @param limit - lines emitted per window (default 20). */
  constructor(emit: (level: string, text: string) => void, limit = 20) {
    this.#emit = emit;
    this.#limit = limit;
  }

  write(level: string, args: readonly unknown[]): void {
    if (this.#written >= this.#limit) {
      this.#dropped += 1;
      return;
    }
    this.#written += 1;
    const text = format(...args);
    this.#emit(level, text.length > MAX_LINE_CHARS ? `${text.slice(0, MAX_LINE_CHARS)}...` : text);
  }

  /** Lines dropped in this window; a new window (with `limit` lines again) starts. */
  takeDropped(): number {
    const dropped = this.#dropped;
    this.#written = 0;
    this.#dropped = 0;
    return dropped;
  }
}
