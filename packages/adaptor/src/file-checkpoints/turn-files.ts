import type { ThreadRecord } from "@adaptor/threadstore";
import { FeatureUnsupportedError, type DriverDescriptor } from "@adaptor/driver";
import type { EventQueue } from "../events/event-queue.js";
import { FileCheckpointError } from "../errors/file-checkpoint-error.js";
import { fileCheckpointSettings, type FileCheckpointOptions } from "./file-checkpoint-options.js";
import { ShadowRepo, type Snapshot, type StoredTurn } from "./shadow-repo.js";

/** One committed turn of a thread that ran with `checkpointFiles`: a point `thread.rewind()` can go back to. */
export interface CheckpointedTurn {
  /** The turn's run id (`result.runId`): pass it to `thread.rewind()` to undo this turn and every later one. */
  readonly runId: string;
  /** The turn's prompt text, at most its first 200 characters. */
  readonly prompt: string;
  /** When the turn committed. */
  readonly committedAt: Date;
  /** Workspace-relative paths over `maxFileBytes` when the turn began: not in its snapshot, never touched by a rewind. */
  readonly skippedFiles: readonly string[];
}

/** What each recorded turn carries (JSON in its snapshot commit). */
interface TurnEntry {
  readonly v: 1;
  readonly runId: string;
  readonly prompt: string;
  readonly committedAt: string;
  readonly skipped: readonly string[];
  /** The thread's record when the turn began (`null`: none, the turn started the conversation). */
  readonly before: (Omit<ThreadRecord, "createdAt" | "updatedAt"> & { createdAt: string; updatedAt: string }) | null;
  /** The version (`id#revision`) of the record the turn committed. */
  readonly after: string;
  /** The workspace's tree when the turn ended (absent for turns recorded without one). */
  readonly end?: string;
  /** Paths over the size cap when the turn ended (absent with `end`). */
  readonly endSkipped?: readonly string[];
}

/** The version naming one committed state of a record. */
export function versionOf(record: ThreadRecord): string {
  return `${record.id}#${record.revision}`;
}

/**
 * Refuses file checkpoints for a driver that cannot resume a session from an older checkpoint
 * (`capabilities.sessions.fromCheckpoint`): a rewind there would restore the files while the agent
 * still remembered the undone turns.
 * @throws FeatureUnsupportedError (feature `checkpointFiles`).
 */
export function checkRewindable(descriptor: DriverDescriptor): void {
  if (descriptor.capabilities.sessions.fromCheckpoint !== true) {
    throw new FeatureUnsupportedError(
      descriptor.type,
      "checkpointFiles",
      "the driver cannot resume a session from an earlier checkpoint, so a rewind could not drop the undone turns from the conversation",
    );
  }
}

/** The workspace's snapshots for `cwd`; `FileCheckpointError` `cwd_required` without one. */
export function openRepo(cwd: string | undefined, options: true | FileCheckpointOptions, signal?: AbortSignal): Promise<ShadowRepo> {
  if (cwd === undefined) {
    return Promise.reject(
      new FileCheckpointError("cwd_required", "file checkpoints need the run's cwd option (the workspace to snapshot)"),
    );
  }
  return ShadowRepo.open(cwd, fileCheckpointSettings(options), signal);
}

/**
 * The file side of one checkpointed thread turn: the workspace snapshot taken before the driver
 * starts (under the thread's lease), recorded with the record the turn started from once the turn
 * commits. A turn that does not commit records nothing.
 */
export class TurnFiles {
  readonly #repo: ShadowRepo;
  readonly #key: string;
  readonly #snapshot: Snapshot;
  readonly #parent: string | undefined;
  readonly #before: ThreadRecord | undefined;
  #end: Snapshot | undefined;

  private constructor(repo: ShadowRepo, key: string, snapshot: Snapshot, parent: string | undefined, before: ThreadRecord | undefined) {
    this.#repo = repo;
    this.#key = key;
    this.#snapshot = snapshot;
    this.#parent = parent;
    this.#before = before;
  }

  /** Snapshots the workspace for `key`; a `notice` `files skipped` lists files over the size cap. */
  static async take(init: {
    descriptor: DriverDescriptor;
    key: string;
    cwd: string | undefined;
    options: true | FileCheckpointOptions;
    before: ThreadRecord | undefined;
    queue: EventQueue;
    signal: AbortSignal;
  }): Promise<TurnFiles> {
    checkRewindable(init.descriptor);
    const started = performance.now();
    const repo = await openRepo(init.cwd, init.options, init.signal);
    const parent = await repo.tip(init.key, init.signal);
    const snapshot = await repo.snapshot(init.key, init.signal);
    const ms = Math.round(performance.now() - started);
    init.queue.push({
      type: "notice",
      kind: "lifecycle",
      message: snapshot.skipped.length > 0 ? "files skipped" : "files checkpointed",
      data: { threadKey: init.key, tree: snapshot.tree, ms, ...(snapshot.skipped.length > 0 ? { skipped: snapshot.skipped } : {}) },
    });
    return new TurnFiles(repo, init.key, snapshot, parent, init.before);
  }

  /**
   * Snapshots the workspace as the turn leaves it, before its commit (still under the lease): a
   * rewind compares it with the snapshot before the turn to know which paths the turn changed, and
   * with the workspace then to know which of those the person changed since. Cheap: git rehashes
   * only the files whose stat data changed since the snapshot before the turn.
   */
  async ended(signal?: AbortSignal): Promise<void> {
    this.#end = await this.#repo.snapshot(this.#key, signal);
  }

  /** Records the committed turn (`written`: the record it committed) as a rewind point. */
  async committed(runId: string, prompt: string, written: ThreadRecord, signal?: AbortSignal): Promise<void> {
    const before = this.#before;
    const entry: TurnEntry = {
      v: 1,
      runId,
      prompt: prompt.slice(0, 200),
      committedAt: new Date().toISOString(),
      skipped: this.#snapshot.skipped,
      before: before ? { ...before, createdAt: before.createdAt.toISOString(), updatedAt: before.updatedAt.toISOString() } : null,
      after: versionOf(written),
      ...(this.#end ? { end: this.#end.tree, endSkipped: this.#end.skipped } : {}),
    };
    await this.#repo.append(this.#key, this.#snapshot, entry, this.#parent, signal);
  }
}

/** A stored turn's entry, read back. */
export function entryOf(turn: StoredTurn): TurnEntry {
  return turn.entry as TurnEntry;
}

/** The record a turn started from, with its dates, or `undefined` for a conversation's first turn. */
export function recordBefore(entry: TurnEntry): ThreadRecord | undefined {
  const before = entry.before;
  return before ? { ...before, createdAt: new Date(before.createdAt), updatedAt: new Date(before.updatedAt) } : undefined;
}

/** The public view of a stored turn. */
export function checkpointedTurn(turn: StoredTurn): CheckpointedTurn {
  const entry = entryOf(turn);
  return { runId: entry.runId, prompt: entry.prompt, committedAt: new Date(entry.committedAt), skippedFiles: entry.skipped };
}
