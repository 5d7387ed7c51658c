import type { Lease } from "../contract/lease.js";
import type { ThreadRecordDraft } from "../contract/thread-record.js";
import type { ThreadStore } from "../contract/thread-store.js";
import { AlreadyExistsError } from "../errors/already-exists-error.js";
import { BusyError } from "../errors/busy-error.js";
import { LeaseLostError } from "../errors/lease-lost-error.js";
import { record } from "./sample-record.js";

/**
 * Races between two instances of one store opened on the same backend, as two hosts share one
 * database. Each check runs `rounds` rounds, starts every call of a round at once, and throws an
 * `Error` naming the round and what it saw when a round does not have exactly one winner. A store
 * that serializes its read-modify-write only inside one instance (an in-process mutex) fails them;
 * they assert outcomes only, never timing.
 */
export interface TwoInstanceOptions {
  /** Rounds per check. Default 20. */
  readonly rounds?: number;
  /** Callers per instance in each round. Default 3. */
  readonly perInstance?: number;
}

const TTL = 60_000;

/** Settles every call of a round, then splits the winners from the losers. */
async function race<T>(calls: Promise<T>[]): Promise<{ won: T[]; lost: unknown[] }> {
  const settled = await Promise.allSettled(calls);
  return {
    won: settled.filter((r): r is PromiseFulfilledResult<Awaited<T>> => r.status === "fulfilled").map((r) => r.value),
    lost: settled.filter((r): r is PromiseRejectedResult => r.status === "rejected").map((r) => r.reason as unknown),
  };
}

/** `count` calls on each instance, `a`'s first; `call(store, name)` where name is unique in the round. */
function onBoth<T>(a: ThreadStore, b: ThreadStore, count: number, call: (store: ThreadStore, name: string) => Promise<T>): Promise<T>[] {
  const calls: Promise<T>[] = [];
  for (let i = 0; i < count; i++) {
    calls.push(call(a, `a${i}`));
    calls.push(call(b, `b${i}`));
  }
  return calls;
}

function expectLosers(what: string, round: number, lost: unknown[], type: abstract new (...args: never[]) => Error): void {
  for (const reason of lost) {
    if (!(reason instanceof type)) {
      throw new Error(`${what}, round ${round}: a loser rejected with ${String(reason)}, expected ${type.name}`, { cause: reason });
    }
  }
}

/**
 * Both instances race `acquireLease` on one target, round after round (the winner releases it
 * through the other instance). Exactly one lease per round, the others `BusyError`, and the
 * winners' fencing tokens strictly increase.
 */
export async function checkTwoInstanceAcquire(a: ThreadStore, b: ThreadStore, options: TwoInstanceOptions = {}): Promise<void> {
  const what = "two instances racing acquireLease";
  let last = 0;
  for (let round = 0; round < (options.rounds ?? 20); round++) {
    const { won, lost } = await race(
      onBoth(a, b, options.perInstance ?? 3, (s, name) => s.acquireLease("x-acquire", `${name}-${round}`, TTL)),
    );
    if (won.length !== 1) {
      const held = won.map((l) => `${l.owner} token ${l.token}`).join(", ");
      throw new Error(`${what}, round ${round}: ${won.length} leases granted on one target (${held}); expected exactly one`);
    }
    expectLosers(what, round, lost, BusyError);
    const lease = won[0] as Lease;
    if (lease.token <= last)
      throw new Error(`${what}, round ${round}: token ${lease.token} after token ${last}; tokens must strictly increase`);
    last = lease.token;
    await (lease.owner.startsWith("a") ? b : a).releaseLease(lease);
  }
}

/**
 * Both instances race `finalize` with `requireKeyAbsent` on a fresh key each round (create if
 * absent). Exactly one write wins, the others `AlreadyExistsError`, and the other instance
 * resolves the key to the winner.
 */
export async function checkTwoInstanceCreateIfAbsent(a: ThreadStore, b: ThreadStore, options: TwoInstanceOptions = {}): Promise<void> {
  const what = "two instances racing finalize with requireKeyAbsent";
  for (let round = 0; round < (options.rounds ?? 20); round++) {
    const key = `x-create-${round}`;
    const drafts = new Map<string, ThreadRecordDraft>();
    const { won, lost } = await race(
      onBoth(a, b, options.perInstance ?? 3, async (s, name) => {
        const draft = record(key, { checkpoint: { resumeId: name } });
        drafts.set(name, draft);
        return s.finalize({ leases: [], record: draft, requireKeyAbsent: true });
      }),
    );
    if (won.length !== 1) {
      throw new Error(`${what}, round ${round}: ${won.length} writers were told they created ${key}; expected exactly one`);
    }
    expectLosers(what, round, lost, AlreadyExistsError);
    await expectActive(what, round, a, b, key, won[0]!.id);
  }
}

/**
 * Both instances race to replace the key's active record (`finalize` with `archiveId` naming it,
 * a compare-and-set on the active record). Exactly one replacement wins each round, the others
 * `AlreadyExistsError`, and both instances resolve the key to the winner.
 */
export async function checkTwoInstanceCompareAndSet(a: ThreadStore, b: ThreadStore, options: TwoInstanceOptions = {}): Promise<void> {
  const what = "two instances racing finalize with archiveId (replace the active record)";
  const key = "x-cas";
  let current = await a.finalize({ leases: [], record: record(key) });
  for (let round = 0; round < (options.rounds ?? 20); round++) {
    const previous = current.id;
    const { won, lost } = await race(
      onBoth(a, b, options.perInstance ?? 3, (s, name) =>
        s.finalize({ leases: [], record: record(key, { checkpoint: { resumeId: `${name}-${round}` } }), archiveId: previous }),
      ),
    );
    if (won.length !== 1) {
      throw new Error(`${what}, round ${round}: ${won.length} writers replaced record ${previous}; expected exactly one`);
    }
    expectLosers(what, round, lost, AlreadyExistsError);
    current = won[0]!;
    await expectActive(what, round, a, b, key, current.id);
  }
}

/**
 * Fenced writes across instances: one instance finalizes under its lease while the other releases
 * that lease, takes a new one and finalizes under it; both replace the same active record. Exactly
 * one of the two writes lands each round (the holder's, or the successor's), never both.
 */
export async function checkTwoInstanceFencedWrites(a: ThreadStore, b: ThreadStore, options: TwoInstanceOptions = {}): Promise<void> {
  const what = "a fenced finalize racing a takeover from the other instance";
  const key = "x-fence";
  let current = await a.finalize({ leases: [], record: record(key) });
  for (let round = 0; round < (options.rounds ?? 20); round++) {
    // Alternate which instance holds the lease.
    const [holder, successor] = round % 2 === 0 ? [a, b] : [b, a];
    const held = await holder.acquireLease(key, `holder-${round}`, TTL);
    const previous = current.id;
    const mine = record(key, { checkpoint: { resumeId: `holder-${round}` } });
    const theirs = record(key, { checkpoint: { resumeId: `successor-${round}` } });
    let next: Lease | undefined;
    const takeover = async () => {
      await successor.releaseLease(held);
      next = await successor.acquireLease(key, `successor-${round}`, TTL);
      return successor.finalize({ leases: [next], record: theirs, archiveId: previous });
    };
    // The holder's write starts 0 to 3 event-loop turns after the takeover, so the rounds meet
    // the takeover at different steps.
    const write = async () => {
      for (let turn = 0; turn < round % 4; turn++) await new Promise((resolve) => setImmediate(resolve));
      return holder.finalize({ leases: [held], record: mine, archiveId: previous });
    };
    const { won, lost } = await race([write(), takeover()]);
    if (won.length !== 1) {
      throw new Error(`${what}, round ${round}: ${won.length} of the two writes landed; expected exactly one`, { cause: lost[0] });
    }
    for (const reason of lost) {
      if (!(reason instanceof LeaseLostError) && !(reason instanceof AlreadyExistsError)) {
        throw new Error(
          `${what}, round ${round}: the losing write rejected with ${String(reason)}, expected LeaseLostError or AlreadyExistsError`,
          {
            cause: reason,
          },
        );
      }
    }
    current = won[0]!;
    await expectActive(what, round, a, b, key, current.id);
    if (next) await successor.releaseLease(next);
  }
}

async function expectActive(what: string, round: number, a: ThreadStore, b: ThreadStore, key: string, id: string): Promise<void> {
  for (const [name, s] of [
    ["first", a],
    ["second", b],
  ] as const) {
    const got = await s.resolve({ key });
    if (got?.id !== id) {
      throw new Error(`${what}, round ${round}: the ${name} instance resolves ${key} to ${got?.id ?? "nothing"}, not the winner ${id}`);
    }
  }
}
