import { basename } from "node:path";

/** Shells whose `-c <script>` is the command a person approves. */
const SHELLS = new Set(["sh", "bash", "zsh", "dash", "ksh", "fish"]);

/** Whitespace runs collapsed and the ends trimmed: `ls  -la ` and `ls -la` are one command line. */
export const normalLine = (line: string): string => line.trim().replace(/\s+/g, " ");

/**
 * The command lines a command names: the words joined, and for a shell run as `sh -c <script>`
 * (also `-lc`, `bash -l -c`) the script itself.
 */
export function commandLines(words: readonly string[]): string[] {
  const lines = [normalLine(words.join(" "))];
  const [shell, ...rest] = words;
  const flag = rest.findIndex((word) => /^-[a-z]*c$/.test(word));
  if (shell !== undefined && SHELLS.has(basename(shell)) && flag >= 0 && rest.slice(0, flag).every((w) => /^-[a-z]+$/.test(w))) {
    const script = rest[flag + 1];
    if (typeof script === "string") lines.push(normalLine(script));
  }
  return lines.filter((line) => line !== "");
}

/**
 * The command lines a tool call's input names: its `command` (or `cmd`), a string or an array of
 * words, followed by its `args`; none when the input names no command.
 */
export function inputCommandLines(input: unknown): string[] {
  if (typeof input !== "object" || input === null) return [];
  const fields = input as Record<string, unknown>;
  const command = fields["command"] ?? fields["cmd"];
  const args = Array.isArray(fields["args"]) ? fields["args"].map(String) : [];
  if (typeof command === "string") return commandLines([command, ...args]);
  if (Array.isArray(command)) return commandLines([...command.map(String), ...args]);
  return [];
}
