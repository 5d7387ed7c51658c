import { AsyncLocalStorage } from "node:async_hooks";
import { format } from "node:util";

/** Where the ACP SDK's console output goes for one connection. */
export interface SdkLogSink {
  /**
   * One console call of the SDK (`console.error(...)` and the like), with its level. Returns false
   * when the sink no longer takes lines (its connection closed): the call then goes to the console.
   */
  write(level: string, args: readonly unknown[]): boolean;
}

const LEVELS = ["error", "warn", "log", "info", "debug"] as const;
const scope = new AsyncLocalStorage<SdkLogSink>();
/** The wrappers this module put on `console`. */
const wrappers = new WeakSet<object>();

/**
 * Runs `connect` so that whatever the ACP SDK writes with `console.*` from the connection it
 * makes (its receive loop and handlers run in the async context of `connect`) goes to `sink`
 * instead of the host's console. The SDK has no logger hook: `console`'s methods are wrapped
 * (again if something replaced the wrapper since), and the wrapper passes every call made outside
 * such a connection to the method it replaced. Host code the connection calls into runs through
 * {@link outsideSdkLog}, so only the SDK's own calls are routed.
 */
export function withSdkLog<T>(sink: SdkLogSink, connect: () => T): T {
  for (const level of LEVELS) {
    const original = console[level];
    if (wrappers.has(original)) continue;
    const wrapper = function (this: Console, ...args: unknown[]): void {
      const routed = scope.getStore();
      // The sink's own work (a notice to the run) is host code too: it runs outside the scope.
      if (!routed || !scope.exit(() => routed.write(level, args))) original.apply(this, args);
    };
    wrappers.add(wrapper);
    console[level] = wrapper;
  }
  return scope.run(sink, connect);
}

/**
 * Runs `fn` (host code the connection calls: a handler of the agent's messages, and through it
 * the run's approval handler, hooks and event consumers) outside every connection's log scope, so
 * its console calls, and those of the timers and promises it starts, stay the host's.
 */
export function outsideSdkLog<T>(fn: () => T): T {
  return scope.exit(fn);
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
  #closed = false;

  /** @param limit - lines emitted per window (default 20). */
  constructor(emit: (level: string, text: string) => void, limit = 20) {
    this.#emit = emit;
    this.#limit = limit;
  }

  write(level: string, args: readonly unknown[]): boolean {
    if (this.#closed) return false;
    if (this.#written >= this.#limit) {
      this.#dropped += 1;
      return true;
    }
    this.#written += 1;
    const text = format(...args);
    this.#emit(level, text.length > MAX_LINE_CHARS ? `${text.slice(0, MAX_LINE_CHARS)}...` : text);
    return true;
  }

  /** Takes no more lines: whatever still logs in the closed connection's scope goes to the console. */
  close(): void {
    this.#closed = true;
  }

  /** Lines dropped in this window; a new window (with `limit` lines again) starts. */
  takeDropped(): number {
    const dropped = this.#dropped;
    this.#written = 0;
    this.#dropped = 0;
    return dropped;
  }
}
