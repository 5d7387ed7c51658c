import { validate as isUuid } from "uuid";
import { InvalidOptionError } from "@adaptor/errors";
import { threadBusyError } from "../errors/thread-busy.js";
import { type ThreadRecord, type ThreadStore } from "@adaptor/threadstore";
import { FileCheckpointError } from "../errors/file-checkpoint-error.js";
import type { FileCheckpointOptions } from "./file-checkpoint-options.js";
import type { DriverDescriptor } from "@adaptor/driver";
import { acquireLeaseWithin, resolveWithin } from "../thread/store-calls.js";
import { checkRewindable, entryOf, openRepo, recordBefore, versionOf } from "./turn-files.js";

/** What a rewind needs from its Agent. */
export interface RewindInit {
  readonly descriptor: DriverDescriptor;
  readonly store: ThreadStore;
  readonly key: string;
  readonly owner: string;
  readonly leaseTtlMs: number;
  readonly cwd: string | undefined;
  readonly options: true | FileCheckpointOptions;
  /** The run id of the turn to undo (with every later one). */
  readonly runId: string;
  readonly signal?: AbortSignal | undefined;
}

/**
 * Undoes the turn `runId` and every later one, under the thread's lease: checks the thread's
 * record is the one its last checkpointed turn committed, puts the workspace files back as they
 * were before that turn, writes back the record the turn started from (a new revision of it: the
 * next turn resumes from that checkpoint, and the drivers drop what the CLI recorded after it),
 * and forgets the undone turns' snapshots. Resolves the record now active. `signal` is followed
 * until the restore starts; after that the rewind runs to its end.
 * @throws InvalidOptionError (field `runId`) for a `runId` that is not a UUID, before anything is
 * opened or leased; FeatureUnsupportedError (feature `checkpointFiles`) for a driver that cannot resume
 * from an earlier checkpoint; ErrThreadBusy while a turn holds the lease; FileCheckpointError (`turn_not_found`,
 * `first_turn`, `diverged`, `git_missing`, `git_failed`, `inside_workspace`, `cwd_required`:
 * nothing changed; `store_failed`: the files were restored, the conversation was not);
 * InvalidOptionError for a malformed lease or record from the store; the signal's abort reason
 * while a store call before the restore has not answered (a lease granted later is given back).
 */
export async function rewindThread(init: RewindInit): Promise<ThreadRecord> {
  const { store, key, signal } = init;
  signal?.throwIfAborted();
  checkRewindable(init.descriptor);
  if (typeof init.runId !== "string" || !isUuid(init.runId)) {
    // Every run id is a UUID: anything else names no turn, and nothing is opened or leased for it.
    const given = typeof init.runId === "string" ? JSON.stringify(init.runId) : `a ${typeof init.runId}`;
    throw new InvalidOptionError({ subject: "thread.rewind()", field: "runId", reason: `must be a run id (a UUID), got ${given}` });
  }
  const repo = await openRepo(init.cwd, init.options, signal);
  let lease;
  try {
    // A lease granted after the caller gave up is given back at once.
    lease = await acquireLeaseWithin(store, key, init.owner, init.leaseTtlMs, signal);
  } catch (error) {
    throw threadBusyError(key, error) ?? error;
  }
  try {
    const turns = await repo.history(key, signal);
    const at = turns.findIndex((turn) => entryOf(turn).runId === init.runId);
    const target = turns[at];
    const head = turns.at(-1);
    if (!target || !head) {
      throw new FileCheckpointError("turn_not_found", `thread ${key}: no checkpointed turn with run id ${init.runId}`);
    }
    const before = recordBefore(entryOf(target));
    if (!before) {
      throw new FileCheckpointError(
        "first_turn",
        `thread ${key}: turn ${init.runId} started the conversation; there is no checkpoint before it`,
      );
    }
    const current = await resolveWithin(store, key, signal);
    if (!current || versionOf(current) !== entryOf(head).after) {
      throw new FileCheckpointError(
        "diverged",
        `thread ${key}: its record is not the one its last checkpointed turn committed (a turn ran without checkpointFiles, elsewhere, or the thread was deleted); nothing was changed`,
      );
    }
    // From here on the signal is no longer followed: a restore stopped halfway would leave the
    // workspace matching neither the turn's snapshot nor its current state.
    await repo.restore(key, target.tree);
    let written: ThreadRecord;
    try {
      const { revision: _assigned, ...draft } = before;
      written = await store.finalize({
        leases: [lease],
        record: { ...draft, status: "active", updatedAt: new Date() },
        ...(before.id !== current.id ? { archiveId: current.id } : {}),
        releaseLeases: true,
      });
    } catch (error) {
      throw new FileCheckpointError(
        "store_failed",
        `thread ${key}: the files were restored to before turn ${init.runId}, but its checkpoint could not be written back`,
        { cause: error },
      );
    }
    await repo.truncate(key, head.commit, turns[at - 1]?.commit);
    return written;
  } finally {
    await store.releaseLease(lease).catch(() => undefined);
  }
}
