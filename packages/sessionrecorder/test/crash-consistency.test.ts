// Kills a real writer process mid-append 50 times (5 session keys, 10 crashes each, the keys in
// parallel; fsync "always" on some keys, "never" on others: an acknowledged append survives a
// process crash under both) and checks every log after every crash: it replays, or it reports a torn final line
// precisely, which repair() removes; nothing an acknowledged (fsynced) append wrote is lost, and
// the sequence continues across the restarts.
import { spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EventLogCorruptError, JsonlEventBackend, type RecordedEvent } from "@adaptor/sessionrecorder";
import { bundleScript } from "./support/bundle-script.js";
import { crashEvent } from "./support/crash-event.js";

const HERE = fileURLToPath(new URL(".", import.meta.url));
const KEYS = 5;
const CRASHES_PER_KEY = 10;

let dir: string;
let writerScript: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "adaptor-recorder-crash-"));
  writerScript = join(dir, "crash-writer.mjs");
  // One bundle (Node built-ins only), so each of the 50 processes starts in tens of milliseconds.
  await bundleScript(writerScript, { entry: join(HERE, "support/crash-writer.ts") });
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A small deterministic PRNG (mulberry32), so a failing run can be repeated. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Crash {
  /** The sequence the writer found at open (the previous crashes' records). */
  readonly openedAt: number;
  /** The highest sequence whose append had resolved when the kill was sent. */
  readonly acknowledged: number;
}

/** Starts a writer on `key`, kills it with SIGKILL after `acks` acknowledged appends, waits for its exit. */
function crashWriter(root: string, key: string, fsync: "always" | "never", acks: number): Promise<Crash> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [writerScript, root, key, fsync], { stdio: ["ignore", "pipe", "pipe"] });
    let openedAt = -1;
    let acknowledged = 0;
    let seen = 0;
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    createInterface({ input: child.stdout }).on("line", (line) => {
      if (line.startsWith("open ")) {
        openedAt = Number(line.slice(5));
        return;
      }
      acknowledged = Math.max(acknowledged, Number(line));
      if (++seen === acks) child.kill("SIGKILL");
    });
    child.on("error", reject);
    child.on("exit", (code, signal) => {
      if (signal !== "SIGKILL") reject(new Error(`writer exited by itself (${code}): ${stderr}`));
      else resolve({ openedAt, acknowledged });
    });
  });
}

/** Replays `key`: every record, and the error that ended the replay, if any. */
async function replayAll(backend: JsonlEventBackend, key: string): Promise<{ records: RecordedEvent[]; error?: unknown }> {
  const records: RecordedEvent[] = [];
  try {
    for await (const record of backend.replay(key)) records.push(record);
    return { records };
  } catch (error) {
    return { records, error };
  }
}

describe("JSONL backend under a writer killed mid-append", () => {
  it(`${KEYS * CRASHES_PER_KEY} SIGKILLs: each log replays or reports its torn final line, repair() recovers it, no acknowledged record is lost`, async () => {
    const root = join(dir, "logs");
    const backend = new JsonlEventBackend({ root });
    const stats = { torn: 0, clean: 0, unacknowledgedKept: 0 };
    const lane = async (k: number): Promise<void> => {
      const key = `crash-${k}`;
      // Odd keys append without fsync: writes then dominate, so more kills land inside one.
      const fsync = k % 2 === 0 ? "always" : "never";
      const next = random(1000 + k);
      let durable = 0; // every sequence up to here was acknowledged by some writer
      for (let round = 0; round < CRASHES_PER_KEY; round++) {
        const crash = await crashWriter(root, key, fsync, 1 + Math.floor(next() * 8));
        // The restarted writer continued the sequence from everything kept so far.
        expect(crash.openedAt).toBeGreaterThanOrEqual(durable);
        durable = Math.max(durable, crash.acknowledged);

        const { records, error } = await replayAll(backend, key);
        if (error !== undefined) {
          // The only acceptable fault: a torn final line, after every complete record.
          expect(error).toBeInstanceOf(EventLogCorruptError);
          const corrupt = error as EventLogCorruptError;
          expect([corrupt.kind, corrupt.repairable, corrupt.line]).toEqual(["torn-final-line", true, records.length + 1]);
          const report = await backend.repair(key);
          expect(report.truncatedBytes).toBeGreaterThan(0);
          expect(report.lastSequence).toBe(records.length);
          stats.torn++;
        } else {
          stats.clean++;
        }
        const after = await replayAll(backend, key);
        expect(after.error).toBeUndefined();
        expect(after.records.map((r) => r.sequence)).toEqual(records.map((r) => r.sequence));
        // Nothing acknowledged is lost; every record is exactly what was appended under its sequence.
        expect(after.records.length).toBeGreaterThanOrEqual(durable);
        after.records.forEach((record, i) => {
          expect(record.sequence).toBe(i + 1);
          expect(record.event).toEqual(crashEvent(i + 1));
        });
        stats.unacknowledgedKept += after.records.length - crash.acknowledged;
      }
    };
    await Promise.all(Array.from({ length: KEYS }, (_, k) => lane(k)));
    await backend.close();
    expect(stats.torn + stats.clean).toBe(KEYS * CRASHES_PER_KEY);
    console.log(
      `crash test: ${stats.torn} torn final lines repaired, ${stats.clean} clean logs, ${stats.unacknowledgedKept} unacknowledged records kept`,
    );
  });
});
