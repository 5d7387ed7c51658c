import type { Job, PgBoss } from "pg-boss";

/** How often (s) one idle slot of a host looks for work nobody announced (retries, a lost notification). */
export const BACKSTOP_SECONDS = 2;
/** The polling interval of each slot's own pg-boss loop: long, since the host wakes its slots itself. */
const SLOT_POLLING_SECONDS = 300;

/**
 * One host's slots on a pg-boss queue, woken by the host instead of each polling on its own.
 *
 * Each slot is a pg-boss worker (`work` with `localConcurrency` 1), so heartbeats, completion,
 * retries, `job.signal` and graceful stop stay pg-boss's. What the host decides is when a slot
 * fetches: a submission's notification wakes one idle slot (not all of them), a slot whose fetch
 * found a job wakes the next idle one (a burst is drained one fetch per run), a slot that finished
 * a run fetches again at once (no polling interval between queued runs), and one idle slot looks
 * every {@link BACKSTOP_SECONDS} seconds for work nobody announced (a retried attempt, the next
 * turn of a thread key served on another host, a notification lost with its connection).
 */
export class HostDispatch {
  readonly #boss: PgBoss;
  /** Slots not running a job, by pg-boss worker id, in the order they became idle. */
  readonly #idle = new Set<string>();
  #backstop: NodeJS.Timeout | undefined;

  constructor(boss: PgBoss) {
    this.#boss = boss;
  }

  /**
   * Starts `slots` pg-boss workers on `queue`, each running `handle` for one job at a time; one
   * idle slot looks for unannounced work every `backstopSeconds` (default {@link BACKSTOP_SECONDS}).
   * @throws what pg-boss's `work` throws (a stopped instance).
   */
  async start<T extends object>(
    queue: string,
    slots: number,
    heartbeatRefreshSeconds: number,
    handle: (job: Job<T>) => Promise<void>,
    backstopSeconds = BACKSTOP_SECONDS,
  ): Promise<void> {
    for (let i = 0; i < slots; i++) {
      let id = "";
      id = await this.#boss.work<T>(
        queue,
        { batchSize: 1, localConcurrency: 1, pollingIntervalSeconds: SLOT_POLLING_SECONDS, heartbeatRefreshSeconds },
        async ([job]) => {
          if (!job) return;
          this.#idle.delete(id);
          // The fetch found work: there may be more, so the next idle slot looks too.
          this.wake();
          try {
            await handle(job);
          } finally {
            this.#idle.add(id);
            // Fetch again as soon as pg-boss has settled this job, instead of after the polling interval.
            this.#boss.notifyWorker(id);
          }
        },
      );
      this.#idle.add(id);
    }
    this.#backstop ??= setInterval(() => this.wake(), backstopSeconds * 1000);
    this.#backstop.unref();
  }

  /** Wakes one idle slot to fetch now (a slot already fetching fetches once more right after). */
  wake(): void {
    const [first] = this.#idle;
    if (first !== undefined) this.#boss.notifyWorker(first);
  }

  /** Stops the backstop timer (pg-boss's stop ends the slots). Idempotent. */
  stop(): void {
    if (this.#backstop) clearInterval(this.#backstop);
    this.#backstop = undefined;
  }
}

/** The topic on the fleet's channel that announces a submission to `queue`'s workers. */
export function dispatchTopic(queue: string): string {
  return `queue:${queue}`;
}
