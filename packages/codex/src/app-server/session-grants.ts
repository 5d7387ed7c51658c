import type { ThreadItem } from "../protocol/generated/v2/ThreadItem.js";

/**
 * What the host answered "for this session" (`acceptForSession`, legacy `approved_for_session`)
 * on one codex session, as codex 0.171.0 applies it: codex runs a later call in that scope
 * without asking, so its result is covered by that answer (`coveredByAsk`), not run unasked.
 * - a command: that command again in the same working directory;
 * - a file change: every file the granted patch named (each changed path, and a move's
 *   destination). A later patch all of whose files (paths and move destinations) are among them
 *   runs unasked; one naming any other file, the next file of the same folder included, is asked.
 *   A `grantRoot` the ask carried is not taken as granted (codex 0.171.0 was not seen to send one).
 */
export class SessionGrants {
  readonly #commands = new Set<string>();
  readonly #files = new Set<string>();

  /** Records the grant of an ask whose `input` the host answered for the session. */
  grant(input: unknown): void {
    const ask = input as { command?: unknown; cwd?: unknown } | undefined;
    if (typeof ask?.command === "string") this.#commands.add(commandKey(ask.command, typeof ask.cwd === "string" ? ask.cwd : null));
    for (const path of askedFiles(input) ?? []) this.#files.add(path);
  }

  /** Whether codex ran `item` (a command or a file change it did not ask about) within a grant. */
  covers(item: ThreadItem): boolean {
    if (item.type === "commandExecution") return this.#commands.has(commandKey(item.command, item.cwd ?? null));
    if (item.type !== "fileChange" || item.changes.length === 0) return false;
    return item.changes.every(
      (change) =>
        this.#files.has(change.path) &&
        (change.kind.type !== "update" || change.kind.move_path === null || this.#files.has(change.kind.move_path)),
    );
  }
}

/** The key of a command granted for the session. */
function commandKey(command: string, cwd: string | null): string {
  return `${cwd ?? ""}\u0000${command}`;
}

/**
 * The files a file-change ask names: `changes[].path` and each update's `move_path` (v2), or the
 * keys of a legacy `fileChanges` and each update's `move_path`. Undefined for any other ask.
 */
function askedFiles(input: unknown): string[] | undefined {
  const ask = input as { changes?: unknown; fileChanges?: unknown } | undefined;
  const files: string[] = [];
  if (Array.isArray(ask?.changes)) {
    for (const change of ask.changes as { path?: unknown; kind?: { move_path?: unknown } }[]) {
      if (typeof change?.path === "string") files.push(change.path);
      if (typeof change?.kind?.move_path === "string") files.push(change.kind.move_path);
    }
    return files;
  }
  if (typeof ask?.fileChanges === "object" && ask.fileChanges !== null) {
    for (const [path, change] of Object.entries(ask.fileChanges as Record<string, { move_path?: unknown } | undefined>)) {
      files.push(path);
      if (typeof change?.move_path === "string") files.push(change.move_path);
    }
    return files;
  }
  return undefined;
}
