// Hostile session keys: the key validator and the mandatory path-containment check refuse every
// key that could name a file outside the root (or a confusing one inside it), in both backends and
// in every operation, before anything is read or written; symbolic links are never followed.
import { spawnSync } from "node:child_process";
import { closeSync, constants, existsSync, mkdirSync, openSync, readdirSync, symlinkSync, writeFileSync, readFileSync } from "node:fs";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findError, isError } from "@adaptor/errors";
import {
  ErrEventLogLocked,
  ErrInvalidSessionKey,
  InvalidSessionKeyError,
  JsonlEventBackend,
  MAX_SESSION_KEY_LENGTH,
  MemoryEventBackend,
  SessionRecorder,
  checkSessionKey,
  sessionKeyProblem,
  type EventBackend,
} from "@adaptor/sessionrecorder";

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "adaptor-hostile-keys-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const HOSTILE: readonly (readonly [string, unknown, string])[] = [
  ["parent directory", "..", '".."'],
  ["current directory", ".", "start with a letter or digit"],
  ["escape upwards", "../outside", "separator"],
  ["deep escape", "../../../../etc/passwd", "separator"],
  ["dots inside", "a..b", '".."'],
  ["nested path", "a/b", "separator"],
  ["windows separator", "a\\b", "separator"],
  ["windows escape", "..\\..\\x", "separator"],
  ["absolute path", "/etc/passwd", "separator"],
  ["windows drive", "C:x", "only A-Z"],
  ["NUL", "a\0b", "NUL"],
  ["NUL only", "\0", "NUL"],
  ["empty", "", "empty"],
  ["hidden file", ".bashrc", "start with a letter or digit"],
  ["leading dash (an option to tools)", "-rf", "start with a letter or digit"],
  ["space", "a b", "only A-Z"],
  ["newline", "a\nb", "only A-Z"],
  ["tilde home", "~", "start with a letter or digit"],
  ["unicode look-alike slash", "a\u2215b", "only A-Z"],
  ["percent-encoded escape", "%2e%2e%2fx", "start with a letter or digit"],
  ["lone surrogate", "a\ud800", "only A-Z"],
  ["too long", "k".repeat(MAX_SESSION_KEY_LENGTH + 1), "longer than"],
  ["not a string", 42, "must be a string"],
  ["null", null, "must be a string"],
];

async function drain(iterable: AsyncIterable<unknown>): Promise<void> {
  for await (const _ of iterable) {
    // drained
  }
}

describe("hostile session keys", () => {
  it.each(HOSTILE)("%s: checkSessionKey refuses it with InvalidSessionKeyError", (_name, key, reason) => {
    expect(sessionKeyProblem(key)).toContain(reason);
    let thrown: unknown;
    try {
      checkSessionKey(key);
    } catch (error) {
      thrown = error;
    }
    expect(isError(thrown, ErrInvalidSessionKey)).toBe(true);
    expect(findError(thrown, InvalidSessionKeyError)?.reason).toContain(reason);
  });

  it("accepts plain keys up to the length limit", () => {
    for (const key of ["a", "run-42", "0193f5e8-8c2a-7b4d-9e1f-2a3b4c5d6e7f", "thread_acme.issue-42", "k".repeat(MAX_SESSION_KEY_LENGTH)]) {
      expect(checkSessionKey(key)).toBe(key);
    }
  });

  const backends: readonly (readonly [string, () => { backend: EventBackend; root?: string }])[] = [
    ["memory", () => ({ backend: new MemoryEventBackend() })],
    ["JSONL", () => ({ backend: new JsonlEventBackend({ root: join(dir, "jsonl-root") }), root: join(dir, "jsonl-root") })],
  ];
  it.each(backends)("%s backend: openWriter, replay, repair and record refuse every hostile key and write nothing", async (_name, make) => {
    const { backend, root } = make();
    const recorder = new SessionRecorder({ backend });
    const before = readdirSync(dir).sort();
    for (const [name, key] of HOSTILE) {
      const errors = await Promise.all([
        backend.openWriter(key as string).catch((e: unknown) => e),
        drain(backend.replay(key as string)).catch((e: unknown) => e),
        backend.repair(key as string).catch((e: unknown) => e),
        drain(
          recorder.record(
            key as string,
            (async function* () {
              yield { type: "x" };
            })(),
          ),
        ).catch((e: unknown) => e),
      ]);
      for (const err of errors) expect(isError(err, ErrInvalidSessionKey), `${name}: ${String(err)}`).toBe(true);
    }
    expect(
      readdirSync(dir)
        .filter((name) => name !== "jsonl-root")
        .sort(),
    ).toEqual(before.filter((name) => name !== "jsonl-root"));
    if (root) expect(existsSync(root) ? readdirSync(root) : []).toEqual([]);
    await backend.close();
  });

  it("a symbolic link planted in the root is never followed: writer, replay and repair refuse the key", async () => {
    const root = join(dir, "planted");
    mkdirSync(root);
    const outside = join(dir, "outside-secret.txt");
    writeFileSync(outside, "do not touch\n");
    symlinkSync(outside, join(root, "victim.jsonl"));
    const backend = new JsonlEventBackend({ root });
    const errors = [
      await backend.openWriter("victim").catch((e: unknown) => e),
      await drain(backend.replay("victim")).catch((e: unknown) => e),
      await backend.repair("victim").catch((e: unknown) => e),
    ];
    for (const err of errors) expect(findError(err, InvalidSessionKeyError)?.reason, String(err)).toContain("symbolic link");
    expect(readFileSync(outside, "utf8")).toBe("do not touch\n");
    // The lock taken for the refused writer was released.
    expect(readdirSync(root)).toEqual(["victim.jsonl"]);
    await backend.close();
  });

  it("a directory where the log should be is refused, not written into", async () => {
    const root = join(dir, "dir-in-place");
    mkdirSync(join(root, "k.jsonl"), { recursive: true });
    const backend = new JsonlEventBackend({ root });
    const err = await backend.openWriter("k").catch((e: unknown) => e);
    expect(findError(err, InvalidSessionKeyError)?.reason).toContain("directory");
    await backend.close();
  });
});

describe("a log path that is not a regular file", () => {
  it("a FIFO at the log path: five replays, openWriter and repair are refused with InvalidSessionKeyError at once, and other file I/O goes on", async () => {
    const root = join(dir, "fifo-log");
    mkdirSync(root);
    const fifo = join(root, "k.jsonl");
    expect(spawnSync("mkfifo", [fifo]).status).toBe(0);
    const backend = new JsonlEventBackend({ root });
    const unrelated = join(dir, "unrelated.txt");
    writeFileSync(unrelated, "still readable\n");
    const settled = (attempt: Promise<unknown>): Promise<unknown> =>
      attempt.then(
        () => "completed",
        (e: unknown) => e,
      );
    // openWriter and repair take the key's lock: one after the other, so neither is refused for the other's lock.
    const attempts = [
      ...Array.from({ length: 5 }, () => settled(drain(backend.replay("k")))),
      settled(backend.openWriter("k")).then(async (first) => [first, await settled(backend.repair("k"))]),
    ];
    let stuck: NodeJS.Timeout | undefined;
    try {
      // Safety net only: before the fix the replays block in open(2) until a writer shows up.
      const timedOut = new Promise<"timed out">((resolve) => (stuck = setTimeout(() => resolve("timed out"), 10_000)));
      const io = [...Array.from({ length: 8 }, () => readFile(unrelated, "utf8")), ...attempts];
      const outcome = await Promise.race([Promise.all(io), timedOut]);
      expect(outcome).not.toBe("timed out");
      const results = (outcome as unknown[]).flat();
      expect(results.slice(0, 8)).toEqual(Array.from({ length: 8 }, () => "still readable\n"));
      expect(results).toHaveLength(8 + 7);
      for (const err of results.slice(8)) {
        expect(isError(err, ErrInvalidSessionKey), String(err)).toBe(true);
        expect(findError(err, InvalidSessionKeyError)?.reason).toBe("its log is not a regular file (a FIFO)");
      }
    } finally {
      clearTimeout(stuck);
      // Unblocks any open(2) still waiting on the FIFO, so a failing run ends.
      try {
        closeSync(openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK));
      } catch {
        // no reader was waiting
      }
      await Promise.all(attempts);
      await backend.close();
    }
  });
});

describe("a lock path that is not a regular file", () => {
  it("a symbolic link at the lock path is not followed: the writer is refused with a message saying what is there", async () => {
    const root = join(dir, "planted-lock");
    mkdirSync(root);
    const target = join(dir, "lock-target.txt");
    writeFileSync(target, "not a lock\n");
    symlinkSync(target, join(root, "k.jsonl.lock"));
    const backend = new JsonlEventBackend({ root });
    const err = await backend.openWriter("k").catch((e: unknown) => e);
    expect(isError(err, ErrEventLogLocked)).toBe(true);
    expect(String(err)).toContain("a lock path that is not a regular file");
    expect(String(err)).not.toContain("unreadable lock file");
    expect(readFileSync(target, "utf8")).toBe("not a lock\n");
    await backend.close();
  });
});
