import { validate as isUuid } from "uuid";
import { InvalidOptionError } from "@adaptor/errors";
import { threadBusyError } from "../errors/thread-busy.js";
import { type ThreadRecord, type ThreadStore } from "@adaptor/threadstore";
import { FileCheckpointError } from "../errors/file-checkpoint-error.js";
import type { FileCheckpointOptions } from "./file-checkpoint-options.js";
import type { DriverDescriptor } from "@adaptor/driver";
import { acquireLeaseWithin, resolveWithin } from "../thread/store-calls.js";
import { checkRewindable, entryOf, openRepo, recordBefore, versionOf } from "./turn-files.js";
import type { ShadowRepo, StoredTurn } from "./shadow-repo.js";

/** What `thread.rewind()` did. */
export interface RewindResult {
  /**
   * The thread's record now active: the one the undone turn started from (a new revision of it).
   * `undefined` when the turn undone was the conversation's first: the thread then has no
   * conversation, and its next turn starts a fresh session.
   */
  readonly record: ThreadRecord | undefined;
  /**
   * Workspace-relative paths put back as they were before the first undone turn that changed
   * them (written back, or removed when they did not exist then), sorted: those the undone turns
   * changed, except `kept`.
   */
  readonly restored: readonly string[];
  /**
   * Workspace-relative paths the undone turns changed that were left as they are now, sorted: one
   * changed again after the thread's last turn ended (by the person or another program); one under
   * a folder that is now a symbolic link or a file, or whose folder resolves outside the workspace
   * (nothing outside it is ever written or removed); one to be written back where a directory now
   * stands (that directory and what it holds stay); one to be removed that is now a directory or
   * that the project's `.gitignore`, as restored, ignores.
   */
  readonly kept: readonly string[];
}

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
 * record is the one its last checkpointed turn committed, puts back the paths the undone turns
 * changed as they were before the first undone turn that changed them (a path changed again after
 * the last turn ended, or that the workspace no longer lets be put back safely, is left as it is
 * now and listed in `kept`), writes back the record the turn started from (a new revision of
 * it: the next turn resumes from that checkpoint, and the drivers drop what the CLI recorded after
 * it) or, for the conversation's first turn, archives the record (the next turn starts a fresh
 * session), and forgets the undone turns' snapshots. `signal` is followed until the restore
 * starts; after that the rewind runs to its end.
 * @throws InvalidOptionError (field `runId`) for a `runId` that is not a UUID, before anything is
 * opened or leased; FeatureUnsupportedError (feature `checkpointFiles`) for a driver that cannot resume
 * from an earlier checkpoint; ErrThreadBusy while a turn holds the lease; FileCheckpointError (`turn_not_found`,
 * `diverged`, `git_missing`, `git_failed`, `inside_workspace`, `cwd_required`:
 * nothing changed; `store_failed`: the files were restored, the conversation was not;
 * `history_failed`: the files and the conversation were restored, the snapshot history was not);
 * InvalidOptionError for a malformed lease or record from the store; the signal's abort reason
 * while a store call before the restore has not answered (a lease granted later is given back).
 */
export async function rewindThread(init: RewindInit): Promise<RewindResult> {
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
    const current = await resolveWithin(store, key, signal);
    if (!current || versionOf(current) !== entryOf(head).after) {
      throw new FileCheckpointError(
        "diverged",
        `thread ${key}: its record is not the one its last checkpointed turn committed (a turn ran without checkpointFiles, elsewhere, or the thread was deleted); nothing was changed`,
      );
    }
    const plan = await planRestore(repo, key, turns.slice(at), signal);
    // From here on the signal is no longer followed: a restore stopped halfway would leave the
    // workspace matching neither the turn's snapshot nor its current state.
    const left = new Set(await repo.restorePaths(key, plan.sources));
    const restored = plan.restored.filter((p) => !left.has(p));
    const kept = [...new Set([...plan.kept, ...left])].sort();
    let written: ThreadRecord | undefined;
    try {
      if (before) {
        const { revision: _assigned, ...draft } = before;
        written = await store.finalize({
          leases: [lease],
          record: { ...draft, status: "active", updatedAt: new Date() },
          ...(before.id !== current.id ? { archiveId: current.id } : {}),
          releaseLeases: true,
        });
      } else {
        // The first turn undone: no conversation is left. The record is archived (kept until the
        // thread is deleted), so the key has no active record and its next turn starts afresh.
        const { revision: _assigned, ...draft } = current;
        await store.finalize({ leases: [lease], record: { ...draft, status: "archived", updatedAt: new Date() }, releaseLeases: true });
      }
    } catch (error) {
      throw new FileCheckpointError(
        "store_failed",
        `thread ${key}: the files were restored to before turn ${init.runId}, but its checkpoint could not be written back`,
        { cause: error },
      );
    }
    // The turn now last is recorded again naming the record just written, so a later rewind
    // across it finds the thread's record is the one its history describes.
    const last = turns[at - 1];
    try {
      const tip =
        last && written
          ? await repo.commit(key, last.tree, { ...entryOf(last), after: versionOf(written) }, turns[at - 2]?.commit)
          : undefined;
      await repo.truncate(key, head.commit, tip);
    } catch (error) {
      throw new FileCheckpointError(
        "history_failed",
        `thread ${key}: the files and the conversation's checkpoint were restored to before turn ${init.runId}, but the undone turns could not be dropped from its file history (a later rewind of this thread fails with diverged)`,
        { cause: error },
      );
    }
    return { record: written, restored, kept };
  } finally {
    await store.releaseLease(lease).catch(() => undefined);
  }
}

/**
 * Which paths a rewind of `undone` (the turns to undo, oldest first) puts back and which it
 * leaves: every path one of the turns changed (its snapshot before against its snapshot at its
 * end), except those over the size cap and those changed since the last turn ended (its end
 * snapshot against the workspace now), which are `kept`. A turn recorded without an end snapshot
 * counts the next turn's starting snapshot (the last turn: the workspace now) as its end. Each
 * path is put back as the first undone turn that changed it found it (`sources`: path to that
 * turn's starting tree), so a file the person wrote between two undone turns goes back to their text.
 */
async function planRestore(
  repo: ShadowRepo,
  key: string,
  undone: readonly StoredTurn[],
  signal?: AbortSignal,
): Promise<{ restored: string[]; kept: string[]; sources: Map<string, string> }> {
  const now = await repo.snapshot(key, signal);
  const changed = new Map<string, string>();
  const large = new Set(now.skipped);
  for (const [i, turn] of undone.entries()) {
    const entry = entryOf(turn);
    for (const p of [...entry.skipped, ...(entry.endSkipped ?? [])]) large.add(p);
    const end = entry.end ?? undone[i + 1]?.tree ?? now.tree;
    for (const p of await repo.changedPaths(turn.tree, end, signal)) if (!changed.has(p)) changed.set(p, turn.tree);
  }
  const lastEnd = entryOf(undone.at(-1)!).end ?? now.tree;
  const since = new Set(await repo.changedPaths(lastEnd, now.tree, signal));
  const restored: string[] = [];
  const kept: string[] = [];
  const sources = new Map<string, string>();
  for (const [p, tree] of [...changed].sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0))) {
    if (large.has(p)) continue;
    if (since.has(p)) kept.push(p);
    else {
      restored.push(p);
      sources.set(p, tree);
    }
  }
  return { restored, kept, sources };
}
