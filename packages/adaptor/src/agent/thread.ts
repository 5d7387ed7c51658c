import { checkThreadKey, type ThreadRecord } from "@adaptor/threadstore";
import type { Result } from "../result/result.js";
import type { RunOptions } from "../options/run-options.js";
import type { Stream } from "../run/stream.js";
import type { ThreadMode } from "../thread/thread-context.js";

/** How a Thread reaches its Agent (internal). */
export interface ThreadHost {
  /** `eventsDrained`: the caller drains the events unread (`run()`), so nobody answers an `approval-request` event. */
  streamThread(
    key: string,
    mode: ThreadMode,
    parentKey: string | undefined,
    prompt: string,
    options: RunOptions,
    eventsDrained: boolean,
  ): Stream;
  checkpoint(key: string, signal?: AbortSignal): Promise<ThreadRecord | undefined>;
}

/**
 * A durable conversation under a key. Runs have the Agent's
 * verdict; each takes the key's lease first (`ErrThreadBusy` when another owner holds it) and
 * persists the new checkpoint only after a healthy run.
 */
export class Thread {
  /** The host's key for this conversation. */
  readonly key: string;
  readonly #host: ThreadHost;
  #mode: ThreadMode;
  readonly #parentKey: string | undefined;

  /**
   * @internal Made by `agent.thread()`, `agent.newThread()` and `thread.fork()`; checks the key
   * rules (`checkThreadKey`) before any store or CLI is touched.
   * @throws TypeError for an empty or non-string key; InvalidThreadKeyError for a key with a lone
   * surrogate or NUL, or longer than 1024 bytes of UTF-8.
   */
  constructor(host: ThreadHost, key: string, mode: ThreadMode, parentKey?: string) {
    checkThreadKey(key);
    this.#host = host;
    this.key = key;
    this.#mode = mode;
    this.#parentKey = parentKey;
  }

  /** Starts a turn; see `Agent.stream`. Never throws. */
  stream(prompt: string, options: RunOptions = {}): Stream {
    return this.#stream(prompt, options, false);
  }

  #stream(prompt: string, options: RunOptions, eventsDrained: boolean): Stream {
    const stream = this.#host.streamThread(this.key, this.#mode, this.#parentKey, prompt, options, eventsDrained);
    // After the first turn of a new thread or a fork, later turns continue the conversation.
    if (this.#mode === "start_new" || this.#mode === "fork") {
      stream.result().then(
        () => (this.#mode = "continue_or_start"),
        () => undefined,
      );
    }
    return stream;
  }

  /**
   * `stream()` drained: resolves the Result or rejects with the verdict. As with `Agent.run`, an
   * approval in `ask` mode without `onApproval` ends the run at once (`RunError` `approval_timeout`).
   */
  async run(prompt: string, options: RunOptions = {}): Promise<Result> {
    const stream = this.#stream(prompt, options, true);
    for await (const _event of stream) {
      // drained; the verdict comes from result()
    }
    return stream.result();
  }

  /**
   * A new thread under `newKey` that branches from this thread's checkpoint on its first run; this
   * thread is untouched. The first run fails with `ErrThreadNotFound` (no parent record) or
   * `ErrThreadAlreadyExists` (`newKey` taken).
   * @throws TypeError for an empty key; InvalidThreadKeyError (`ErrInvalidThreadKey`) for a key
   * that breaks the key rules (lone surrogate, NUL, over 1024 bytes of UTF-8).
   */
  fork(newKey: string): Thread {
    return new Thread(this.#host, newKey, "fork", this.key);
  }

  /** The active record of this key (diagnostic), or `undefined`. Rejects with `ErrThreadStoreRequired` without a store. */
  checkpoint(signal?: AbortSignal): Promise<ThreadRecord | undefined> {
    return this.#host.checkpoint(this.key, signal);
  }
}
