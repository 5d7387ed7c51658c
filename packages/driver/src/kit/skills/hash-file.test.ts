import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtempSync, rmSync, symlinkSync, truncateSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { hashFile } from "./hash-file.js";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
function folder(): string {
  const dir = mkdtempSync(join(tmpdir(), "adaptor-hash-file-"));
  dirs.push(dir);
  return dir;
}

describe("hashFile (skill digests)", () => {
  it("hashes a regular file's bytes as one update of the whole file would, also past one read chunk", () => {
    const dir = folder();
    const path = join(dir, "SKILL.md");
    writeFileSync(path, "head\n");
    truncateSync(path, 3 * 1024 * 1024 + 7);
    const hash = createHash("sha256");
    hashFile(hash, path);
    const whole = Buffer.alloc(3 * 1024 * 1024 + 7);
    whole.write("head\n");
    expect(hash.digest("hex")).toBe(createHash("sha256").update(whole).digest("hex"));
  });

  it("a FIFO or a symbolic link to /dev/zero swapped in for a listed file throws at once, never waited on or read forever", () => {
    const dir = folder();
    const fifo = join(dir, "fifo");
    execFileSync("mkfifo", [fifo]);
    expect(() => hashFile(createHash("sha256"), fifo)).toThrow(/not a regular file/);
    const link = join(dir, "zero");
    symlinkSync("/dev/zero", link);
    expect(() => hashFile(createHash("sha256"), link)).toThrow(/ELOOP/);
  });
});
