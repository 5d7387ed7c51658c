// One writer per session key: a second writer is refused in the same backend, in a second backend
// on the same root, and from another process; a lock left by a dead process is taken over.
import { spawn, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findError } from "@adaptor/errors";
import { EventLogLockedError, JsonlEventBackend, type RecordedEvent } from "@adaptor/sessionrecorder";
import { bundleScript } from "./support/bundle-script.js";

let dir: string;
let holderScript: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "adaptor-writers-"));
  holderScript = join(dir, "hold-writer.mjs");
  await bundleScript(holderScript, {
    contents: `import { JsonlEventBackend } from "@adaptor/sessionrecorder";
const [root, key] = process.argv.slice(2);
const writer = await new JsonlEventBackend({ root }).openWriter(key);
await writer.append({ from: "other process" });
process.stdout.write("holding\\n");
// The interval keeps the writer reachable: a collected writer would close its log on its own.
setInterval(() => writer, 1000);`,
  });
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

let n = 0;
function freshRoot(): string {
  const root = join(dir, `root-${++n}`);
  mkdirSync(root);
  return root;
}

async function replayAll(backend: JsonlEventBackend, key: string): Promise<RecordedEvent[]> {
  const out: RecordedEvent[] = [];
  for await (const record of backend.replay(key)) out.push(record);
  return out;
}

describe("one writer per session key", () => {
  it("JSONL: a second writer in the same backend and in a second backend on the same root is refused; repair too", async () => {
    const root = freshRoot();
    const a = new JsonlEventBackend({ root });
    const b = new JsonlEventBackend({ root });
    const writer = await a.openWriter("k");
    const refusals = await Promise.all([a.openWriter("k"), b.openWriter("k"), b.repair("k")].map((p) => p.catch((e: unknown) => e)));
    for (const err of refusals) {
      expect(findError(err, EventLogLockedError)?.holder).toMatchObject({ pid: process.pid, hostname: hostname() });
    }
    await writer.append("still the only writer");
    await writer.close();
    const next = await b.openWriter("k");
    expect(next.lastSequence).toBe(1);
    await Promise.all([a.close(), b.close()]);
    expect(readdirSync(root)).toEqual(["k.jsonl"]); // locks released, no temporary files left
  });

  it("another process holding the key refuses this one; once it is killed its stale lock is taken over", async () => {
    const root = freshRoot();
    const child = spawn(process.execPath, [holderScript, root, "shared"], { stdio: ["ignore", "pipe", "inherit"] });
    const exited = new Promise((resolve) => child.on("exit", resolve));
    await new Promise<void>((resolve) => createInterface({ input: child.stdout }).once("line", () => resolve()));
    const backend = new JsonlEventBackend({ root });
    const err = await backend.openWriter("shared").catch((e: unknown) => e);
    expect(findError(err, EventLogLockedError)?.holder?.pid).toBe(child.pid);
    // A replay while the other process writes is allowed.
    expect((await replayAll(backend, "shared")).map((r) => r.event)).toEqual([{ from: "other process" }]);
    child.kill("SIGKILL");
    await exited;
    const writer = await backend.openWriter("shared");
    expect((await writer.append({ from: "this process" })).sequence).toBe(2);
    await backend.close();
  });

  it("a lock naming a dead pid on this host is stale; one naming another host never is", async () => {
    const root = freshRoot();
    const dead = spawnSync(process.execPath, ["-e", "0"]).pid;
    const lock = (host: string, pid: number): string =>
      JSON.stringify({ pid, hostname: host, acquiredAt: "2026-01-01T00:00:00.000Z", token: "t" });
    writeFileSync(join(root, "a.jsonl.lock"), lock(hostname(), dead));
    writeFileSync(join(root, "b.jsonl.lock"), lock("some-other-machine", dead));
    writeFileSync(join(root, "c.jsonl.lock"), "not a lock");
    const backend = new JsonlEventBackend({ root });
    const taken = await backend.openWriter("a");
    await taken.close();
    const foreign = await backend.openWriter("b").catch((e: unknown) => e);
    expect(findError(foreign, EventLogLockedError)?.holder).toMatchObject({ hostname: "some-other-machine", pid: dead });
    const unreadable = await backend.openWriter("c").catch((e: unknown) => e);
    expect(findError(unreadable, EventLogLockedError)?.holder).toBeUndefined();
    await backend.close();
  });

  it("a takeover claim left by a process that died mid-takeover is itself taken over, and nothing is left behind", async () => {
    const root = freshRoot();
    const dead = spawnSync(process.execPath, ["-e", "0"]).pid;
    const lock = (token: string): string =>
      JSON.stringify({ pid: dead, hostname: hostname(), acquiredAt: "2026-01-01T00:00:00.000Z", token });
    writeFileSync(join(root, "k.jsonl.lock"), lock("stale-writer"));
    // The claim a breaker took on that stale lock before it died: `.<sha256 of "<lock name>\0<token>", 32 hex>.takeover`.
    const claim = createHash("sha256").update("k.jsonl.lock\0stale-writer").digest("hex").slice(0, 32);
    writeFileSync(join(root, `.${claim}.takeover`), lock("dead-breaker"));
    const backend = new JsonlEventBackend({ root });
    const writer = await backend.openWriter("k");
    expect((await writer.append("taken over")).sequence).toBe(1);
    expect(readdirSync(root).sort()).toEqual(["k.jsonl", "k.jsonl.lock"]);
    await backend.close();
    expect(readdirSync(root)).toEqual(["k.jsonl"]);
  });
});
