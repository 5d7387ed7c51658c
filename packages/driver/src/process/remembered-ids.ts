/**
 * Session or process-group ids a CLI's processes were seen in, each with the start time (clock
 * ticks since boot) of the first process seen in it, kept after those processes end: whatever is
 * still in one was started by them. An id is the pid of the process that created the session or
 * group, and the kernel hands that pid out again only once nothing is left in it; so a live
 * process that has the id as its pid and started after the first one seen in it means the
 * remembered one is gone and the id now names another session or group (made by any process on
 * the host, such as another CLI): the id is then forgotten, and nothing in it is taken.
 */
export class RememberedIds {
  readonly #since = new Map<number, number>();

  /** Whether any id is remembered. */
  get size(): number {
    return this.#since.size;
  }

  /** Whether `id` is remembered (whether or not it still names what was seen: {@link holds}). */
  has(id: number): boolean {
    return this.#since.has(id);
  }

  /** Remembers `id`, seen holding a process that started at `start` (clock ticks). */
  note(id: number, start: number): void {
    const since = this.#since.get(id);
    if (since === undefined || start < since) this.#since.set(id, start);
  }

  /**
   * Whether `id` is remembered and still names what was seen: forgets it (false) when `startOf(id)`
   * (the start time of the live process whose pid is `id`, undefined when there is none) is later
   * than the first process seen in it.
   */
  holds(id: number, startOf: (pid: number) => number | undefined): boolean {
    const since = this.#since.get(id);
    if (since === undefined) return false;
    const creator = startOf(id);
    if (creator !== undefined && creator > since) {
      this.#since.delete(id);
      return false;
    }
    return true;
  }
}
