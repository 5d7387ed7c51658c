// A merge that left its conflict markers in a tracked file: markdown and comments pass every other
// check (types, eslint, prettier), so the tracked text files are read for them here.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const TEXT = /\.(md|ts|mts|cts|js|mjs|cjs|json|ya?ml|sh|txt)$/;
const MARKER = /^(<{7}|>{7})( |$)|^={7}$/m;

function trackedTextFiles(): string[] {
  const out = execFileSync("git", ["ls-files", "-z"], { cwd: ROOT, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
  return out.split("\0").filter((f) => TEXT.test(f) && !f.endsWith("pnpm-lock.yaml"));
}

/** The tracked files of `files` that hold a conflict marker line, as `path:line`. */
function filesWithConflictMarkers(files: readonly string[], read: (file: string) => string): string[] {
  const found: string[] = [];
  for (const file of files) {
    const text = read(file);
    const match = MARKER.exec(text);
    if (match !== null) found.push(`${file}:${text.slice(0, match.index).split("\n").length}`);
  }
  return found;
}

describe("merge conflict markers", () => {
  it("finds a marker line in a text and names its line", () => {
    const texts: Record<string, string> = { "a.md": "one\n<<<<<<< HEAD\nx\n=======\ny\n>>>>>>> branch\n", "b.md": "a ======= b\n" };
    expect(filesWithConflictMarkers(["a.md", "b.md"], (f) => texts[f] ?? "")).toEqual(["a.md:2"]);
  });

  it("no tracked text file holds one", () => {
    const files = trackedTextFiles();
    expect(files.length).toBeGreaterThan(100);
    expect(filesWithConflictMarkers(files, (f) => readFileSync(join(ROOT, f), "utf8"))).toEqual([]);
  });
});
