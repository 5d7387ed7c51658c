import { resolve } from "node:path";
import type { ApprovalAsk } from "@adaptor/driver";
import { hasNoEffect } from "@adaptor/driver/kit";
import { commandLines, inputCommandLines, normalLine as normal } from "./command-lines.js";

/** What one approved agent ask still covers: the files it named and, for an `execute` ask, its command lines. */
interface Credit {
  /** The absolute paths the ask named (its `locations`, its input's path fields) not written yet. */
  readonly paths: Set<string>;
  /** The command lines the ask named (its input's `command` / `args`, its title); empty unless kind `execute`. */
  readonly commands: Set<string>;
}

/** Input fields the agents of the suites name the file of an edit with (Qwen Code, Gemini CLI: `file_path`). */
const PATH_FIELDS = ["path", "file_path", "filePath", "absolute_path", "filename", "file", "target_file", "notebook_path"];

/**
 * The approved agent asks of one turn not yet used by a host write or command. Each is bound to
 * what was approved: a host `fs/write_text_file` is covered only by an approved ask of an acting
 * kind (not `read`, `search`, `think`) that named the same file, once per file it named; a host
 * `terminal/create` only by an approved ask of kind `execute` that named the same command line,
 * which uses the whole ask.
 */
export class ApprovedAsks {
  readonly #credits: Credit[] = [];
  readonly #cwd: string;

  /** @param cwd - the working directory a relative path of an ask is resolved against. */
  constructor(cwd: string) {
    this.#cwd = cwd;
  }

  /** Records an ask the host approved; an ask of kind `read`, `search` or `think` covers nothing. */
  add(ask: ApprovalAsk): void {
    const kind = ask.details?.["toolKind"];
    if (hasNoEffect(typeof kind === "string" ? kind : undefined)) return;
    const input = typeof ask.input === "object" && ask.input !== null ? (ask.input as Record<string, unknown>) : {};
    const paths = new Set<string>();
    const locations = ask.details?.["locations"];
    for (const location of Array.isArray(locations) ? locations : []) {
      const path = (location as { path?: unknown } | null)?.path;
      if (typeof path === "string" && path !== "") paths.add(this.#absolute(path));
    }
    for (const field of PATH_FIELDS) {
      const path = input[field];
      if (typeof path === "string" && path !== "") paths.add(this.#absolute(path));
    }
    const commands = new Set<string>();
    if (kind === "execute") {
      for (const line of inputCommandLines(input)) commands.add(line);
      const title = normal(ask.title ?? "");
      const quoted = /^`([^`]+)`$/.exec(title)?.[1];
      for (const line of [title, quoted]) if (line) commands.add(normal(line));
    }
    if (paths.size > 0 || commands.size > 0) this.#credits.push({ paths, commands });
  }

  /** Uses an approved ask's cover of `path` (its commands too); false when no ask named it. */
  takeWrite(path: string): boolean {
    const target = this.#absolute(path);
    const credit = this.#credits.find((c) => c.paths.has(target));
    if (!credit) return false;
    credit.paths.delete(target);
    credit.commands.clear();
    if (credit.paths.size === 0) this.#credits.splice(this.#credits.indexOf(credit), 1);
    return true;
  }

  /** Uses the approved `execute` ask that named the command line `command` + `args`, whole; false when none did. */
  takeCommand(command: string, args: readonly string[]): boolean {
    const lines = commandLines([command, ...args]);
    const index = this.#credits.findIndex((credit) => lines.some((line) => credit.commands.has(line)));
    if (index < 0) return false;
    this.#credits.splice(index, 1);
    return true;
  }

  #absolute(path: string): string {
    // An absolute `path` is only normalized: resolve starts over at it.
    return resolve(this.#cwd, path);
  }
}
