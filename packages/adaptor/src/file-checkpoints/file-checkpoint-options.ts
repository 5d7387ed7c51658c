import { homedir } from "node:os";
import path from "node:path";

/**
 * Settings of per-turn file checkpoints (the `checkpointFiles` option). Every field is optional.
 */
export interface FileCheckpointOptions {
  /**
   * Directory holding the snapshots: one git object store per workspace, never inside a workspace
   * (`FileCheckpointError` `inside_workspace`). Absolute or relative to `process.cwd()`. Default
   * `$XDG_STATE_HOME/adaptor/file-checkpoints`, else `~/.local/state/adaptor/file-checkpoints`.
   */
  readonly dir?: string;
  /**
   * Files larger than this many bytes are left out of every snapshot and never touched by a
   * rewind (listed in the turn's `skippedFiles` and in a `notice` `files skipped`). A positive
   * integer. Default 10,485,760 (10 MiB).
   */
  readonly maxFileBytes?: number;
  /** The git executable, a path or a name on `PATH`. Default `"git"`. */
  readonly git?: string;
}

/** Default {@link FileCheckpointOptions.maxFileBytes}: 10 MiB. */
export const DEFAULT_MAX_FILE_BYTES = 10 * 1024 * 1024;

/** The settings in force for `value` (`true` or an options object). */
export function fileCheckpointSettings(value: true | FileCheckpointOptions): Required<FileCheckpointOptions> {
  const given = value === true ? {} : value;
  const state = process.env["XDG_STATE_HOME"] || path.join(homedir(), ".local", "state");
  return {
    dir: path.resolve(given.dir ?? path.join(state, "adaptor", "file-checkpoints")),
    maxFileBytes: given.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES,
    git: given.git ?? "git",
  };
}
