// Fault-injection acceptance tests of @adaptor/driver/process, driven by the fake CLI. They live in
// testkit because testkit depends on driver (driver's own tests must not import testkit).
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { DriverError, ErrCode } from "@adaptor/errors";
import { spawnCli, type CliProcess, type OutputLine, type SpawnOptions } from "@adaptor/driver/process";
import { fakeCliEnv, fakeCliPath, processGone, waitForProcessGone, type FakeCliStep } from "./index.js";

function fake(steps: FakeCliStep[], options: Partial<SpawnOptions> = {}): Promise<CliProcess> {
  return spawnCli({ command: fakeCliPath, args: ["--ignored", "flags"], env: { ...process.env, ...fakeCliEnv(steps) }, ...options });
}

async function collect(lines: AsyncIterable<OutputLine>): Promise<OutputLine[]> {
  const out: OutputLine[] = [];
  for await (const line of lines) out.push(line);
  return out;
}

/** Reads lines until `predicate` matches one; returns it and the iterator to keep reading. */
async function readUntil(iterator: AsyncIterator<OutputLine>, predicate: (line: OutputLine) => boolean): Promise<OutputLine> {
  for (;;) {
    const next = await iterator.next();
    if (next.done) throw new Error("stdout ended before the expected line");
    if (predicate(next.value)) return next.value;
  }
}

const isType = (type: string) => (line: OutputLine) => line.kind === "json" && (line.value as { type?: unknown }).type === type;

/** Runs `fn` while recording unhandled rejections and uncaught exceptions of this process. */
async function withoutUnhandled(fn: () => Promise<void>): Promise<unknown[]> {
  const seen: unknown[] = [];
  const record = (err: unknown): void => void seen.push(err);
  process.on("unhandledRejection", record);
  process.on("uncaughtException", record);
  try {
    await fn();
    await new Promise((r) => setTimeout(r, 50)); // let late 'error' events surface
  } finally {
    process.off("unhandledRejection", record);
    process.off("uncaughtException", record);
  }
  return seen;
}

describe("spawnCli with the fake CLI: framing faults", () => {
  it("decodes a 4-byte UTF-8 character split across two writes", async () => {
    const line = Buffer.from('{"type":"text","text":"split 😀 here"}\n', "utf8");
    const cut = line.indexOf(0xf0) + 2; // inside the emoji
    await using proc = await fake([
      { writeBase64: line.subarray(0, cut).toString("base64") },
      { sleepMs: 50 },
      { writeBase64: line.subarray(cut).toString("base64") },
    ]);
    const lines = await collect(proc.lines());
    expect(lines).toEqual([
      { kind: "json", value: { type: "text", text: "split 😀 here" }, text: '{"type":"text","text":"split 😀 here"}' },
    ]);
    expect(proc.takeOutput().stdout).toBe(line.toString("utf8"));
  });

  it("returns a non-JSON line as text and still delivers the JSON lines around it", async () => {
    await using proc = await fake([{ write: '{"n":1}\n' }, { write: "Warning: not json at all\n" }, { write: '{"n":2}\n' }]);
    expect(await collect(proc.lines())).toEqual([
      { kind: "json", value: { n: 1 }, text: '{"n":1}' },
      { kind: "text", text: "Warning: not json at all" },
      { kind: "json", value: { n: 2 }, text: '{"n":2}' },
    ]);
  });

  it("strips CRLF line endings", async () => {
    await using proc = await fake([
      { write: '{"a":1}\r\n' },
      { write: "text\r\n" },
      { write: '{"b":2}\r' },
      { sleepMs: 20 },
      { write: "\n" },
    ]);
    expect((await collect(proc.lines())).map((l) => l.text)).toEqual(['{"a":1}', "text", '{"b":2}']);
  });

  it("delivers an unterminated last line at EOF and ends lines() when stdout ends", async () => {
    await using proc = await fake([{ write: '{"a":1}\n\n{"last":true}' }, { exit: 0 }]);
    expect(await collect(proc.lines())).toEqual([
      { kind: "json", value: { a: 1 }, text: '{"a":1}' },
      { kind: "json", value: { last: true }, text: '{"last":true}' },
    ]);
  });

  it("fails an over-long line with RESOURCE_EXHAUSTED (maxLineBytes 1024) after the lines before it", async () => {
    await using proc = await fake([{ write: '{"ok":1}\n' }, { write: `${"x".repeat(4096)}\n` }, { write: '{"ok":2}\n' }], {
      maxLineBytes: 1024,
      device: "claude",
    });
    const seen: OutputLine[] = [];
    const err = await (async () => {
      for await (const line of proc.lines()) seen.push(line);
    })().catch((e: unknown) => e);
    expect(seen).toEqual([{ kind: "json", value: { ok: 1 }, text: '{"ok":1}' }]);
    expect(err).toBeInstanceOf(DriverError);
    expect(err).toMatchObject({ op: "read", device: "claude", code: ErrCode.ResourceExhausted });
    expect((err as Error).message).toBe("[RESOURCE_EXHAUSTED] read: claude (line exceeds 1024 bytes)");
  });

  it("fails an over-long line that never ends while the child hangs (framing never buffers past the limit)", async () => {
    await using proc = await fake([{ write: "y".repeat(8192) }, { hang: true }], { maxLineBytes: 1024, killGraceMs: 200 });
    await expect(collect(proc.lines())).rejects.toMatchObject({ code: ErrCode.ResourceExhausted });
  });

  it("breaking out of lines() raises nothing; the rest of stdout (2 MB) is drained and the child exits", async () => {
    const dir = await mkdtemp(join(tmpdir(), "adaptor-fake-cli-"));
    try {
      const fill: FakeCliStep = { write: `{"fill":"${"z".repeat(100_000)}"}\n` };
      const file = join(dir, "scenario.json");
      await writeFile(file, JSON.stringify([{ write: '{"n":1}\n{"n":2}\n' }, ...Array.from({ length: 20 }, () => fill), { exit: 4 }]));
      await using proc = await spawnCli({ command: fakeCliPath, args: [], env: { ...process.env, ADAPTOR_FAKE_CLI_SCENARIO_FILE: file } });
      for await (const line of proc.lines()) {
        expect(line).toMatchObject({ kind: "json", value: { n: 1 } });
        break;
      }
      expect((await proc.exited).code).toBe(4); // 2 MB exceed any pipe buffer: stdout kept draining
      expect(proc.takeOutput().stdoutBytes).toBeGreaterThan(2_000_000);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe("spawnCli with the fake CLI: stdin faults", () => {
  it("rejects writeJson with BROKEN_PIPE when the child closed its stdin early, with no unhandled error", async () => {
    await using proc = await fake([{ closeStdin: true }, { write: '{"type":"ready"}\n' }, { hang: true }], { killGraceMs: 200 });
    const iterator = proc.lines()[Symbol.asyncIterator]();
    await readUntil(iterator, isType("ready"));
    const payload = { blob: "p".repeat(256 * 1024) };
    let failure: unknown;
    const unhandled = await withoutUnhandled(async () => {
      for (let i = 0; i < 64 && failure === undefined; i++) await proc.writeJson(payload).catch((e: unknown) => (failure = e));
    });
    expect(unhandled).toEqual([]);
    expect(failure).toBeInstanceOf(DriverError);
    expect(failure).toMatchObject({ op: "write", code: ErrCode.BrokenPipe });
    await expect(proc.writeJson({ again: true })).rejects.toMatchObject({ code: ErrCode.BrokenPipe });
  });

  it("rejects writeJson with BROKEN_PIPE after the child exited", async () => {
    await using proc = await fake([{ exit: 0 }]);
    await proc.exited;
    const unhandled = await withoutUnhandled(async () => {
      await expect(proc.writeJson({ late: true })).rejects.toMatchObject({ op: "write", code: ErrCode.BrokenPipe });
    });
    expect(unhandled).toEqual([]);
  });

  it("closeStdin twice ends stdin once: the child gets one line then EOF, later writes are BROKEN_PIPE", async () => {
    await using proc = await fake([{ echoStdinLine: true }, { awaitStdinLine: true }]);
    await proc.writeJson({ q: "hello" });
    proc.closeStdin();
    proc.closeStdin();
    await expect(proc.writeJson({ q: "late" })).rejects.toMatchObject({ code: ErrCode.BrokenPipe });
    expect(await collect(proc.lines())).toEqual([
      { kind: "json", value: { type: "echo", line: { q: "hello" } }, text: '{"type":"echo","line":{"q":"hello"}}' },
    ]);
    expect(await proc.exited).toEqual({ code: 3, signal: null, forceKilled: false }); // the fake's "stdin ended" exit
    expect(proc.stderrTail()).toBe("fake-cli: stdin ended before a line arrived");
  });
});

describe("spawnCli with the fake CLI: exit and kill", () => {
  it("exited resolves with the exit code after stdout and stderr were read", async () => {
    await using proc = await fake([{ write: '{"type":"done"}\n' }, { stderr: "bye\n" }, { exit: 42 }]);
    expect(await proc.exited).toEqual({ code: 42, signal: null, forceKilled: false });
    const output = proc.takeOutput();
    expect(output.stdout).toBe('{"type":"done"}\n');
    expect(output.stderr).toBe("bye\n");
  });

  it("escalates to SIGKILL when the child ignores SIGTERM: forceKilled after killGraceMs, pid gone", async () => {
    const killGraceMs = 300;
    const proc = await fake([{ ignoreSigterm: true }, { write: '{"type":"ready"}\n' }, { hang: true }], { killGraceMs });
    await readUntil(proc.lines()[Symbol.asyncIterator](), isType("ready"));
    const started = performance.now();
    const info = await proc.terminate();
    const elapsed = performance.now() - started;
    expect(info).toEqual({ code: null, signal: "SIGKILL", forceKilled: true, terminated: true });
    expect(elapsed).toBeGreaterThanOrEqual(killGraceMs - 5);
    // An upper bound only guards against a hang; a busy machine may take seconds to deliver the kill.
    expect(elapsed).toBeLessThan(killGraceMs + 20_000);
    expect(() => process.kill(proc.pid, 0)).toThrow(expect.objectContaining({ code: "ESRCH" }));
    expect(proc.terminate()).toBe(proc.terminate());
    await expect(proc.exited).resolves.toBe(info);
    await proc.close();
  });

  it("kills a grandchild with its process group on terminate", async () => {
    await using proc = await fake([{ spawnGrandchild: true }, { hang: true }], { killGraceMs: 500 });
    const line = await readUntil(proc.lines()[Symbol.asyncIterator](), isType("grandchild"));
    const grandchild = (line.kind === "json" ? (line.value as { pid: number }).pid : 0) || 0;
    expect(grandchild).toBeGreaterThan(0);
    expect(processGone(grandchild)).toBe(false);
    const info = await proc.terminate();
    expect(info).toMatchObject({ signal: "SIGTERM", forceKilled: false });
    expect(() => process.kill(proc.pid, 0)).toThrow(expect.objectContaining({ code: "ESRCH" }));
    expect(await waitForProcessGone(grandchild)).toBe(true);
  });

  it("await using terminates a live child on scope exit", async () => {
    let pid = 0;
    {
      await using proc = await fake([{ hang: true }], { killGraceMs: 200 });
      pid = proc.pid;
      expect(processGone(pid)).toBe(false);
    }
    expect(() => process.kill(pid, 0)).toThrow(expect.objectContaining({ code: "ESRCH" }));
  });
});
