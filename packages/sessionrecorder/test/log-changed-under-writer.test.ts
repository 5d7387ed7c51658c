// A JSONL log changed under an open writer (replaced by a rename, deleted, truncated) must not
// swallow acknowledged appends: the writer fails with EventLogCorruptError `changed-under-writer`.
// And a writer lock whose holder is a zombie (killed, not yet reaped) is taken over.
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { mkdtemp, rename, rm, truncate, unlink, writeFile } from "node:fs/promises";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findError, isError } from "@adaptor/errors";
import { ErrJSONLEventLogCorrupt, EventLogCorruptError, JsonlEventBackend } from "@adaptor/sessionrecorder";

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "adaptor-jsonl-changed-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

let n = 0;
const freshRoot = (): string => join(dir, `root-${++n}`);

const CHANGES: readonly (readonly [string, (log: string) => Promise<void>])[] = [
  [
    "replaced by a rename",
    async (log) => {
      await writeFile(`${log}.other`, "");
      await rename(`${log}.other`, log);
    },
  ],
  ["deleted", (log) => unlink(log)],
  ["truncated", (log) => truncate(log, 0)],
];

describe("a JSONL log changed under an open writer", () => {
  it.each(CHANGES)(
    "%s: the next append rejects with EventLogCorruptError changed-under-writer, and so does every later one",
    async (_name, change) => {
      const root = freshRoot();
      const backend = new JsonlEventBackend({ root });
      const writer = await backend.openWriter("k");
      await writer.append({ i: 1 });
      await change(join(root, "k.jsonl"));
      const error = await writer.append({ i: 2 }).catch((e: unknown) => e);
      expect(isError(error, ErrJSONLEventLogCorrupt)).toBe(true);
      expect(findError(error, EventLogCorruptError)).toMatchObject({ key: "k", kind: "changed-under-writer", repairable: false, line: 2 });
      const later = await writer.append({ i: 3 }).catch((e: unknown) => e);
      expect(findError(later, EventLogCorruptError)?.kind).toBe("changed-under-writer");
      await writer.close();
      await backend.close();
    },
  );
});

/** Field `index` (1-based, as proc(5) numbers them) of /proc/<pid>/stat. */
function procStat(pid: number, index: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[index - 3];
  } catch {
    return undefined;
  }
}

describe.skipIf(process.platform !== "linux")("a JSONL writer lock held by a zombie", () => {
  it("is stale: a holder killed but not yet reaped (state Z) is taken over", async () => {
    // `sleep` started in the background by a shell that then execs another `sleep`: its parent
    // never waits for it, so once killed it stays a zombie until the parent ends.
    const parent = spawn("sh", ["-c", "sleep 600 & echo $!; exec sleep 600"], { stdio: ["ignore", "pipe", "ignore"] });
    try {
      const pid = Number(await new Promise<string>((resolve) => parent.stdout.once("data", (chunk: Buffer) => resolve(String(chunk)))));
      const startTime = procStat(pid, 22);
      expect(startTime).toBeDefined();
      process.kill(pid, "SIGKILL");
      const deadline = Date.now() + 10_000;
      while (procStat(pid, 3) !== "Z" && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
      expect(procStat(pid, 3)).toBe("Z");

      const root = freshRoot();
      const backend = new JsonlEventBackend({ root });
      // Create the root, then plant the zombie's lock.
      await (await backend.openWriter("other")).close();
      const lock = { pid, hostname: hostname(), acquiredAt: new Date().toISOString(), token: "zombie-token", startTime };
      await writeFile(join(root, "k.jsonl.lock"), JSON.stringify(lock));
      const writer = await backend.openWriter("k");
      expect((await writer.append({ taken: true })).sequence).toBe(1);
      await writer.close();
      await backend.close();
    } finally {
      parent.kill("SIGKILL");
    }
  });
});
