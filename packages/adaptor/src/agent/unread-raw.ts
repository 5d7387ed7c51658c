import { loadRawFiles, rawHoldsFiles } from "@adaptor/driver/process";
import { Result } from "../result/result.js";

/**
 * The raw streams of an Agent's Results whose text still waits in a spill file (one open
 * descriptor each until `raw().stdout` / `stderr` is read or the Result is collected). Held
 * weakly: tracking keeps no Result alive. `load()` (at `agent.close()`) reads them into memory,
 * closing the files, so `raw()` afterwards gives the same text.
 */
export class UnreadRawFiles {
  readonly #held = new Set<WeakRef<object>>();
  /** Size of {@link #held} after the last sweep: the next sweep comes when it has doubled. */
  #swept = 0;

  /** Tracks the Result of a verdict: a `Result`, or an error carrying one (`RunError`, `ThreadSessionError`). */
  track(verdict: unknown): void {
    const result = verdict instanceof Result ? verdict : (verdict as { result?: unknown } | null)?.result;
    if (!(result instanceof Result)) return;
    const raw = result.raw();
    if (!rawHoldsFiles(raw)) return;
    this.#held.add(new WeakRef(raw));
    if (this.#held.size > 2 * this.#swept + 16) this.#sweep();
  }

  /** Reads every tracked stream still held in a file into memory and closes the file. */
  load(): void {
    for (const ref of this.#held) {
      const raw = ref.deref();
      if (raw !== undefined) loadRawFiles(raw);
    }
    this.#held.clear();
    this.#swept = 0;
  }

  /** Forgets Results collected or read since they were tracked. */
  #sweep(): void {
    for (const ref of this.#held) {
      const raw = ref.deref();
      if (raw === undefined || !rawHoldsFiles(raw)) this.#held.delete(ref);
    }
    this.#swept = this.#held.size;
  }
}
