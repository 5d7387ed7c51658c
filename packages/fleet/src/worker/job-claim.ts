import type pg from "pg";
import type { Job, PgBoss } from "pg-boss";

/**
 * A worker's claim on the pg-boss job of the attempt it runs. The claim is pg-boss's: it lapses
 * when pg-boss fails the job (its heartbeat stopped: the worker was paused, starved or cut off
 * longer than `heartbeatSeconds`), cancels it or retries it elsewhere. An attempt whose claim
 * lapsed is lost: it stores nothing, and applies no answer, even though its process goes on.
 */
export class JobClaim {
  readonly #boss: PgBoss;
  readonly #job: { readonly name: string; readonly id: string; readonly retryCount: number };
  readonly #lost = new AbortController();

  constructor(boss: PgBoss, job: Job<unknown>) {
    this.#boss = boss;
    this.#job = { name: job.name, id: job.id, retryCount: job.retryCount };
  }

  /** Aborted once this claim was found lapsed (by {@link held}, or pg-boss's heartbeat aborting `job.signal`). */
  get lost(): AbortSignal {
    return this.#lost.signal;
  }

  /**
   * True while the job is still active under this worker's claim on its attempt: pg-boss's
   * `touch` of the fetched attempt (which also refreshes its heartbeat). With `client`, in the
   * caller's transaction: the job's row stays locked until it ends, so pg-boss cannot fail the job
   * before what the caller writes next commits. False marks the claim {@link lost}.
   * @throws Error when the database is unreachable.
   */
  async held(client?: pg.ClientBase): Promise<boolean> {
    if (this.#lost.signal.aborted) return false;
    const db = client ? { db: { executeSql: (text: string, values?: unknown[]) => client.query(text, values) } } : {};
    const touched = await this.#boss.touch(this.#job.name, { id: this.#job.id, retryCount: this.#job.retryCount }, db);
    // pg-boss's `CommandResponse` declares no members; `affected` counts the jobs it touched.
    if (((touched as { affected?: number }).affected ?? 0) > 0) return true;
    this.lose();
    return false;
  }

  /** Marks the claim lost (see {@link lost}). */
  lose(): void {
    if (!this.#lost.signal.aborted)
      this.#lost.abort(new Error(`fleet run ${this.#job.id}: attempt ${this.#job.retryCount + 1} lost its job's claim`));
  }
}
