import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { readdirSync, readlinkSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { describe, expect, it, vi } from "vitest";
import { DriverError, ErrCode } from "@adaptor/errors";
import { forceKilledError } from "./force-killed-error.js";
import type { OutputLine } from "./output-line.js";
import { spawnCli } from "./spawn-cli.js";
import { responseExit } from "../kit/cancel/response-exit.js";

vi.mock("node:child_process", async (importOriginal) => {
  const actual = await importOriginal<typeof import("node:child_process")>();
  return { ...actual, spawn: vi.fn(actual.spawn) };
});

const node = process.execPath;

/** Spawns `node -e script` through spawnCli. */
function nodeScript(script: string, extra: Partial<Parameters<typeof spawnCli>[0]> = {}) {
  return spawnCli({ command: node, args: ["-e", script], device: "node", killGraceMs: 500, ...extra });
}

async function collect(lines: AsyncIterable<OutputLine>): Promise<OutputLine[]> {
  const out: OutputLine[] = [];
  for await (const line of lines) out.push(line);
  return out;
}

describe("spawnCli", () => {
  it("rejects a missing executable with NOT_FOUND and the exact message before any spawn", async () => {
    vi.mocked(spawn).mockClear();
    const err = await spawnCli({ command: "adaptor-no-such-cli", args: [], env: { PATH: "/nonexistent-dir" } }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DriverError);
    expect(err).toMatchObject({ op: "spawn", device: "adaptor-no-such-cli", code: ErrCode.NotFound });
    expect((err as Error).message).toBe("[NOT_FOUND] spawn: adaptor-no-such-cli (executable not found on PATH)");
    expect(vi.mocked(spawn)).not.toHaveBeenCalled();
  });

  it("a failed spawn keeps the operating system's error (errno code) in its cause chain, not a string", async () => {
    const causes = await Promise.all(
      [
        { command: "/nonexistent-adaptor-dir/claude", args: [] },
        { command: "adaptor-no-such-cli", args: [], env: { PATH: "/nonexistent-dir" } },
        { command: node, args: [], cwd: "/nonexistent-adaptor-cwd" },
        { command: node, args: [], cwd: fileURLToPath(import.meta.url) },
        { command: fileURLToPath(new URL(".", import.meta.url)), args: [] },
      ].map((options) =>
        spawnCli(options).then(
          () => undefined,
          (e: unknown) => (e as DriverError).cause,
        ),
      ),
    );
    const [path, bare, cwd, fileCwd, directory] = causes as NodeJS.ErrnoException[];
    for (const cause of causes) expect(cause).toBeInstanceOf(Error);
    expect(path).toMatchObject({
      code: "ENOENT",
      syscall: "spawn /nonexistent-adaptor-dir/claude",
      path: "/nonexistent-adaptor-dir/claude",
    });
    expect(path!.cause).toMatchObject({ code: "ENOENT", syscall: "stat", path: "/nonexistent-adaptor-dir/claude" });
    expect(bare).toMatchObject({ code: "ENOENT", syscall: "spawn adaptor-no-such-cli", path: "adaptor-no-such-cli" });
    expect(cwd).toMatchObject({ code: "ENOENT", syscall: "chdir", path: "/nonexistent-adaptor-cwd" });
    expect(cwd!.cause).toMatchObject({ code: "ENOENT", syscall: "stat" });
    expect(fileCwd).toMatchObject({ code: "ENOTDIR", syscall: "chdir" });
    expect(directory).toMatchObject({ code: "EISDIR" });
  });

  it("missing cwd: NOT_FOUND names the directory, not the executable, and nothing is spawned", async () => {
    vi.mocked(spawn).mockClear();
    const err = await spawnCli({ command: node, args: [], cwd: "/nonexistent-adaptor-cwd", device: "claude" }).catch((e: unknown) => e);
    expect(vi.mocked(spawn)).not.toHaveBeenCalled();
    expect(err).toBeInstanceOf(DriverError);
    expect(err).toMatchObject({ op: "spawn", device: "/nonexistent-adaptor-cwd", code: ErrCode.NotFound });
    expect((err as Error).message).toBe("[NOT_FOUND] spawn: /nonexistent-adaptor-cwd (working directory of claude does not exist)");
  });

  it("non-directory cwd (a regular file): NOT_FOUND naming the file as not a directory, before spawn", async () => {
    vi.mocked(spawn).mockClear();
    const file = fileURLToPath(import.meta.url);
    const err = await spawnCli({ command: node, args: [], cwd: file, device: "claude" }).catch((e: unknown) => e);
    expect(vi.mocked(spawn)).not.toHaveBeenCalled();
    expect(err).toMatchObject({ op: "spawn", device: file, code: ErrCode.NotFound });
    expect((err as Error).message).toBe(`[NOT_FOUND] spawn: ${file} (working directory of claude is not a directory)`);
  });

  it("command typo: NOT_FOUND names the command the user gave, not only the driver's device name", async () => {
    vi.mocked(spawn).mockClear();
    const err = await spawnCli({ command: "claude-typo", args: [], device: "claude", env: { PATH: "/nonexistent-dir" } }).catch(
      (e: unknown) => e,
    );
    expect(vi.mocked(spawn)).not.toHaveBeenCalled();
    expect(err).toMatchObject({ op: "spawn", device: "claude", code: ErrCode.NotFound });
    expect((err as Error).message).toBe('[NOT_FOUND] spawn: claude (executable "claude-typo" not found on PATH)');
  });

  it("rejects invalid options with INVALID before spawning", async () => {
    await expect(spawnCli({ command: node, args: [], killGraceMs: -1 })).rejects.toMatchObject({ code: ErrCode.Invalid });
    await expect(spawnCli({ command: node, args: [], maxLineBytes: 0 })).rejects.toMatchObject({ code: ErrCode.Invalid });
  });

  it.skipIf(process.platform !== "linux")("passes argv verbatim with no shell, as a detached process group leader", async () => {
    const args = ["a b", "$HOME", "'q'", "`x`;|&"];
    const script =
      "console.log(JSON.stringify({ argv: process.argv.slice(1), stat: require('fs').readFileSync('/proc/self/stat', 'utf8') }))";
    await using direct = await spawnCli({ command: node, args: ["-e", script, ...args] });
    const [line] = await collect(direct.lines());
    const value = line?.kind === "json" ? (line.value as { argv: string[]; stat: string }) : undefined;
    expect(value?.argv).toEqual(args);
    const pgid = Number(value?.stat.slice(value.stat.lastIndexOf(")") + 2).split(" ")[2]);
    expect(pgid).toBe(direct.pid);
  });

  it("gives the child exactly the env passed, without undefined entries, plus its process tag", async () => {
    await using proc = await nodeScript("console.log(JSON.stringify(Object.keys(process.env).sort()))", {
      env: { PATH: process.env["PATH"], ADAPTOR_A: "1", ADAPTOR_B: undefined },
    });
    const lines = await collect(proc.lines());
    expect(lines[0]).toMatchObject({ kind: "json", value: ["ADAPTOR_A", "ADAPTOR_PROCESS_TAG", "PATH"] });
  });

  it("closeStdin twice calls stdin.end exactly once and the child sees one EOF", async () => {
    vi.mocked(spawn).mockClear();
    await using proc = await nodeScript(
      "let n=0; process.stdin.on('data', d => n += d.length); process.stdin.on('end', () => console.log(JSON.stringify({ eof: n })))",
    );
    const child = vi.mocked(spawn).mock.results[0]?.value as ChildProcessWithoutNullStreams;
    const end = vi.spyOn(child.stdin, "end");
    await proc.writeJson({ hi: 1 });
    proc.closeStdin();
    proc.closeStdin();
    expect(end).toHaveBeenCalledTimes(1);
    expect(await collect(proc.lines())).toEqual([{ kind: "json", value: { eof: 9 }, text: '{"eof":9}' }]);
    await expect(proc.writeJson({})).rejects.toMatchObject({ op: "write", code: ErrCode.BrokenPipe });
    expect((await proc.exited).code).toBe(0);
  });

  it("round-trips writeJson lines through a child that echoes stdin", async () => {
    await using proc = await nodeScript("process.stdin.pipe(process.stdout)");
    await proc.writeJson({ n: 1, s: "é😀" });
    await proc.writeJson([2]);
    proc.closeStdin();
    expect((await collect(proc.lines())).map((l) => (l.kind === "json" ? l.value : l.text))).toEqual([{ n: 1, s: "é😀" }, [2]]);
    expect(proc.takeOutput()).toEqual({
      stdout: '{"n":1,"s":"é😀"}\n[2]\n',
      stderr: "",
      stdoutBytes: Buffer.byteLength('{"n":1,"s":"é😀"}\n[2]\n'),
      stderrBytes: 0,
      stdoutTruncated: false,
      stderrTruncated: false,
    });
  });

  it("redactRaw: each value is [redacted] in the kept stdout and stderr text and the stderr tail (as it is and base64-encoded); the lines read and the byte counts are the child's", async () => {
    const secret = "hdrSecret-QWERTY123456";
    const line = JSON.stringify({
      config: { headers: { authorization: `Bearer ${secret}` } },
      b64: Buffer.from(`k=${secret}`).toString("base64"),
    });
    const script = `process.stdout.write(${JSON.stringify(line + "\n")}); process.stderr.write("debug token ${secret}\\n")`;
    await using proc = await nodeScript(script, { redactRaw: [secret] });
    const lines = await collect(proc.lines());
    await proc.exited;
    expect(lines).toEqual([expect.objectContaining({ kind: "json", value: JSON.parse(line) })]);
    const output = proc.takeOutput();
    expect(output.stdout).toBe('{"config":{"headers":{"authorization":"Bearer [redacted]"}},"b64":"az1[redacted]"}\n');
    expect(output.stderr).toBe("debug token [redacted]\n");
    expect(output.stdoutBytes).toBe(Buffer.byteLength(line) + 1);
    expect(proc.stderrTail()).toBe("debug token [redacted]");
  });

  it("redactRaw: a value split over two stderr chunks is [redacted] in the stderr text handed to onStderr, whether its rest comes before the held line is handed on or after", async () => {
    const secret = "hdrSecret-QWERTY123456";
    // The first chunk ends inside the value; the rest is written once the test saw the first line.
    const script = `process.stderr.write("first line\\ntoken ${secret.slice(0, 10)}"); process.stdin.once("data", () => process.stderr.write("${secret.slice(10)} end\\nlast"))`;
    let stderr = "";
    await using proc = await nodeScript(script, { redactRaw: [secret], onStderr: (text) => (stderr += text) });
    await vi.waitFor(() => expect(stderr).toContain("first line"), { timeout: 30_000, interval: 20 });
    // The unfinished line is held (its rest came soon) or was handed on cut (its end redacted).
    expect(["first line\n", "first line\ntoken [redacted]"]).toContain(stderr);
    await proc.writeText("go\n");
    proc.closeStdin();
    await proc.exited;
    expect(stderr).toMatch(/^first line\ntoken (\[redacted\]){1,2} end\nlast$/);
    expect(proc.takeOutput().stderr).toBe("first line\ntoken [redacted] end\nlast");
  });

  it("redactRaw: an unfinished stderr line the CLI then waits after (a prompt) is handed to onStderr soon, not only at exit", async () => {
    const secret = "hdrSecret-QWERTY123456";
    // The CLI prompts without a line end and waits for an answer on stdin before it ends.
    const script = `process.stderr.write("token ${secret}\\nPassword: "); process.stdin.once("data", () => process.stderr.write("ok\\n"))`;
    let stderr = "";
    await using proc = await nodeScript(script, { redactRaw: [secret], onStderr: (text) => (stderr += text) });
    await vi.waitFor(() => expect(stderr).toContain("Password: "), { timeout: 20_000, interval: 20 });
    expect(stderr).toBe("token [redacted]\nPassword: ");
    await proc.writeText("x\n");
    proc.closeStdin();
    await proc.exited;
    expect(stderr).toBe("token [redacted]\nPassword: ok\n");
  });

  it("redactRaw: a kept window or stderr tail whose bound cut a value shows no readable end of it", async () => {
    const secret = "hdrSecret-QWERTY123456";
    // 64 KiB of stderr after the value's first 10 characters: the 64 KiB tail and window start with its last 12.
    const script = `process.stderr.write("token ${secret}" + "e".repeat(65536 - 12))`;
    await using proc = await nodeScript(script, { redactRaw: [secret], maxRawBytes: 65536 });
    await proc.exited;
    expect(proc.stderrTail(65536)).toBe(`[redacted]${"e".repeat(65536 - 12)}`);
    const output = proc.takeOutput();
    expect(output.stderrTruncated).toBe(true);
    expect(output.stderr).toBe(`[redacted]${"e".repeat(65536 - 12)}`);
  });

  it("unbounded raw output: 5 MB of stdout keeps only a maxRawBytes tail with the real byte count", async () => {
    const script =
      "const row = 'r'.repeat(1023) + '\\n'; for (let i = 0; i < 5120; i++) process.stdout.write(row); process.stderr.write('e'.repeat(300000))";
    await using proc = await nodeScript(script, { maxRawBytes: 64 * 1024 });
    expect((await collect(proc.lines())).length).toBe(5120);
    await proc.exited;
    const output = proc.takeOutput();
    expect(output).toMatchObject({ stdoutBytes: 5 * 1024 * 1024, stderrBytes: 300_000, stdoutTruncated: true, stderrTruncated: true });
    expect(Buffer.byteLength(output.stdout)).toBe(64 * 1024);
    expect(output.stdout.endsWith("r\n")).toBe(true);
    expect(output.stderr).toBe("e".repeat(64 * 1024));
  });

  it("a window that spilled (more kept output than the spill bound) is read back when stdout is first read: every byte, the file then closed", async () => {
    // 6 MiB kept by one window is above the 1 MiB and 128 KiB of blocks in use past which tails spill.
    const script = "const row = 'é😀'.repeat(170) + 'xyz\\n'; for (let i = 0; i < 6 * 1024; i++) process.stdout.write(row)";
    await using proc = await nodeScript(script, { maxRawBytes: 8 * 1024 * 1024 });
    expect((await collect(proc.lines())).length).toBe(6 * 1024);
    await proc.exited;
    const output = proc.takeOutput();
    const files = () => readdirSync("/proc/self/fd").filter((fd) => readlinkOrEmpty(`/proc/self/fd/${fd}`).includes("adaptor-raw-"));
    expect(files()).toHaveLength(1); // the finished window's bytes are in its spill file, not decoded
    expect(output).toMatchObject({ stdoutBytes: 6 * 1024 * 1024, stdoutTruncated: false, stderr: "", stderrTruncated: false });
    expect(output.stdout).toBe(("é😀".repeat(170) + "xyz\n").repeat(6 * 1024));
    expect(files()).toEqual([]);
    expect(output.stdout.length).toBe(6 * 1024 * (3 * 170 + 4)); // read again: the same text, nothing reopened
  });

  it("a child flooding stdout past 8,192 unread lines waits on its writes until they are read; then every line arrives", async () => {
    // 60,000 lines of 100 bytes (6 MB) written synchronously; "all written" on stderr once the last write returned.
    const script =
      "const fs = require('node:fs'); const row = 'r'.repeat(99) + '\\n'; for (let i = 0; i < 60000; i++) fs.writeSync(1, row); fs.writeSync(2, 'all written')";
    let stderr = "";
    await using proc = await nodeScript(script, { onStderr: (text) => (stderr += text) });
    const lines = proc.lines()[Symbol.asyncIterator]();
    await lines.next(); // the consumer started, and reads nothing more for now
    const written = await Promise.race([
      proc.exited.then(() => true),
      new Promise<false>((resolve) => setTimeout(() => resolve(false), 3_000)),
    ]);
    expect([written, stderr]).toEqual([false, ""]);
    // The output is held back (a stall watchdog does not count that as the child's silence).
    for (const end = Date.now() + 60_000; !proc.outputHeld && Date.now() < end;) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(proc.outputHeld).toBe(true);
    // Read: the 8,192 queued lines, the pipe's buffer and one chunk; far from the 6 MB written unpaused.
    expect(proc.outputBytes).toBeLessThan(2 * 1024 * 1024);
    let count = 1;
    while (!(await lines.next()).done) count++;
    expect(count).toBe(60_000);
    expect(proc.outputHeld).toBe(false);
    expect((await proc.exited).code).toBe(0);
    expect(stderr).toBe("all written");
  });

  it("a spilled window of exactly maxRawBytes gives every byte, untruncated; one byte more drops only the first", async () => {
    const max = 3 * 1024 * 1024; // above the 1 MiB and 128 KiB of blocks in use past which tails spill
    for (const extra of [0, 1]) {
      const script = `const row = 'é😀'.repeat(170) + 'xyz\\n'; for (let i = 0; i < 3 * 1024; i++) process.stdout.write(row); process.stdout.write('${"a".repeat(extra)}')`;
      await using proc = await nodeScript(script, { maxRawBytes: max });
      await collect(proc.lines());
      await proc.exited;
      const output = proc.takeOutput();
      const whole = ("é😀".repeat(170) + "xyz\n").repeat(3 * 1024) + "a".repeat(extra);
      expect(Buffer.byteLength(whole)).toBe(max + extra);
      expect(output).toMatchObject({ stdoutBytes: max + extra, stdoutTruncated: extra > 0 });
      // One byte over: the first byte (of an "é") goes, and with it the rest of that character.
      expect(output.stdout).toBe(extra === 0 ? whole : whole.slice(1));
    }
  });

  it("reused process: each takeOutput() window holds only that turn's output, nothing from earlier turns", async () => {
    await using proc = await nodeScript("process.stdin.pipe(process.stdout)");
    const lines = proc.lines()[Symbol.asyncIterator]();
    const windows = [];
    for (const turn of [1, 2, 3]) {
      await proc.writeJson({ turn, pad: "p".repeat(1000 * turn) });
      await lines.next();
      windows.push(proc.takeOutput());
    }
    expect(windows.map((w) => JSON.parse(w.stdout) as { turn: number }).map((v) => v.turn)).toEqual([1, 2, 3]);
    expect(windows.map((w) => w.stdoutBytes)).toEqual(windows.map((w) => Buffer.byteLength(w.stdout)));
  });

  it("takeSettledOutput(): each turn's window counts the stderr line written before the stdout line that ended the turn", async () => {
    // Each line read: one stderr line, written out, then the stdout answer.
    await using proc = await nodeScript(
      'require("node:readline").createInterface({ input: process.stdin }).on("line", (l) => process.stderr.write("warn " + l + "\\n", () => process.stdout.write(l + "\\n")))',
    );
    const lines = proc.lines()[Symbol.asyncIterator]();
    const windows = [];
    for (let turn = 1; turn <= 20; turn++) {
      await proc.writeJson({ turn });
      await lines.next();
      windows.push(await proc.takeSettledOutput());
    }
    expect(windows.map((w) => w.stderr)).toEqual(windows.map((_, i) => `warn {"turn":${i + 1}}\n`));
  });

  it("rejects a maxRawBytes that is not a positive integer with INVALID before spawning", async () => {
    await expect(spawnCli({ command: node, args: [], maxRawBytes: 0 })).rejects.toMatchObject({ code: ErrCode.Invalid });
    await expect(spawnCli({ command: node, args: [], maxRawBytes: Number.NaN })).rejects.toMatchObject({ code: ErrCode.Invalid });
  });

  it("rejects writeJson with INTERNAL for a value JSON cannot encode", async () => {
    await using proc = await nodeScript("setTimeout(() => {}, 5000)");
    await expect(proc.writeJson(10n)).rejects.toMatchObject({ op: "write", code: ErrCode.Internal });
    await expect(proc.writeJson(undefined)).rejects.toMatchObject({ op: "write", code: ErrCode.Internal });
  });

  it("throws INVALID when lines() is called a second time (single consumer)", async () => {
    await using proc = await nodeScript("0");
    proc.lines();
    expect(() => proc.lines()).toThrow(expect.objectContaining({ code: ErrCode.Invalid }));
  });

  it("a line lines() handed over is not kept by the process while later lines wait: after 999 of 1,000 queued lines are taken, the taken ones can be collected", async () => {
    setFlagsFromString("--expose-gc");
    const gc = runInNewContext("gc") as () => void;
    const proc = await nodeScript('for (let i = 0; i < 1000; i++) console.log(JSON.stringify({ i, pad: "x".repeat(1000) }))');
    await proc.exited; // every line is queued
    const lines = proc.lines()[Symbol.asyncIterator]();
    const taken: WeakRef<OutputLine>[] = [];
    for (let i = 0; i < 999; i++) {
      const next = await lines.next();
      expect(next.value).toMatchObject({ kind: "json", value: { i } });
      taken.push(new WeakRef(next.value as OutputLine));
    }
    // A weak reference made in a job keeps its target alive until the job ends; a full collection
    // may still find one held by the job before (a worker under load): a few rounds, each after a
    // job ends. A line the process kept stays alive through all of them.
    const alive = (): number => taken.filter((ref) => ref.deref() !== undefined).length;
    for (let round = 0; round < 5 && (round === 0 || alive() > 1); round++) {
      await new Promise((resolve) => setImmediate(resolve));
      gc();
    }
    expect(alive()).toBeLessThanOrEqual(1);
    expect((await lines.next()).value).toMatchObject({ kind: "json", value: { i: 999 } });
    expect((await lines.next()).done).toBe(true);
  });

  it("lineBatches() delivers the same lines as lines(), in order, then the over-long line's RESOURCE_EXHAUSTED", async () => {
    const script =
      "for (let i = 0; i < 3000; i++) process.stdout.write(JSON.stringify({ i }) + '\\n'); process.stdout.write('plain text\\n' + 'x'.repeat(300) + '\\n')";
    await using proc = await nodeScript(script, { maxLineBytes: 200 });
    const seen: OutputLine[] = [];
    let error: unknown;
    try {
      for await (const batch of proc.lineBatches()) {
        expect(batch.length).toBeGreaterThan(0);
        seen.push(...batch);
      }
    } catch (err) {
      error = err;
    }
    expect(seen.length).toBe(3001);
    expect(seen.slice(0, 3000).map((line) => (line.kind === "json" ? (line.value as { i: number }).i : -1))).toEqual([
      ...Array(3000).keys(),
    ]);
    expect(seen[3000]).toEqual({ kind: "text", text: "plain text" });
    expect(error).toMatchObject({ op: "read", code: ErrCode.ResourceExhausted });
  });

  it("textBatches() delivers the texts lines() frames (CRLF stripped, blanks skipped, split UTF-8 whole), then the over-long line's RESOURCE_EXHAUSTED", async () => {
    // The emoji's four bytes are written in two parts, the CRLF's CR and LF too.
    const script = [
      "const out = process.stdout;",
      "for (let i = 0; i < 3000; i++) out.write(JSON.stringify({ i }) + '\\n');",
      'const emoji = Buffer.from(\'{"t":"a😀b"}\\r\\n\');',
      "out.write(emoji.subarray(0, 8));",
      "setTimeout(() => { out.write(emoji.subarray(8, -1)); setTimeout(() => { out.write(emoji.subarray(-1)); out.write('\\n  \\nnot json\\n' + 'x'.repeat(300) + '\\n'); }, 50); }, 50);",
    ].join(" ");
    await using proc = await nodeScript(script, { maxLineBytes: 200 });
    const seen: string[] = [];
    let error: unknown;
    try {
      for await (const batch of proc.textBatches()) {
        expect(batch.length).toBeGreaterThan(0);
        seen.push(...batch);
      }
    } catch (err) {
      error = err;
    }
    expect(seen).toEqual([...Array.from({ length: 3000 }, (_, i) => JSON.stringify({ i })), '{"t":"a😀b"}', "not json"]);
    expect(error).toMatchObject({ op: "read", code: ErrCode.ResourceExhausted });
  });

  it("stdout has one consumer: any two of lines(), lineBatches() and textBatches() throw INVALID", async () => {
    await using a = await nodeScript("0");
    a.lines();
    expect(() => a.lineBatches()).toThrow(expect.objectContaining({ code: ErrCode.Invalid }));
    expect(() => a.textBatches()).toThrow(expect.objectContaining({ code: ErrCode.Invalid }));
    await using b = await nodeScript("0");
    b.lineBatches();
    expect(() => b.lines()).toThrow(expect.objectContaining({ code: ErrCode.Invalid }));
    await using c = await nodeScript("0");
    c.textBatches();
    expect(() => c.lines()).toThrow(expect.objectContaining({ code: ErrCode.Invalid }));
    expect(() => c.textBatches()).toThrow(expect.objectContaining({ code: ErrCode.Invalid }));
  });

  it("parseLine replaces JSON.parse for every line: its value is delivered, a throw makes the line text", async () => {
    const parseLine = (text: string): unknown => {
      if (text === "special") return { special: true };
      return JSON.parse(text) as unknown;
    };
    await using proc = await nodeScript("process.stdout.write('{\"a\":1}\\nspecial\\nnot json\\n')", { parseLine });
    expect(await collect(proc.lines())).toEqual([
      { kind: "json", value: { a: 1 }, text: '{"a":1}' },
      { kind: "json", value: { special: true }, text: "special" },
      { kind: "text", text: "not json" },
    ]);
  });

  it("coloured stderr: stderrTail has no ANSI escape codes while stderr keeps the raw bytes", async () => {
    await using proc = await nodeScript("process.stderr.write('\\u001b[31mError:\\u001b[0m boom\\n')");
    await proc.exited;
    expect(proc.takeOutput().stderr).toBe("\u001b[31mError:\u001b[0m boom\n");
    expect(proc.stderrTail()).toBe("Error: boom");
  });

  it("collects stderr, calls onStderr with decoded text, and stderrTail keeps the trimmed last bytes", async () => {
    const seen: string[] = [];
    await using proc = await nodeScript("process.stderr.write('first é\\n' + 'x'.repeat(5000) + ' last words\\n')", {
      onStderr: (text) => {
        seen.push(text);
        throw new Error("observer failure is ignored");
      },
    });
    await proc.exited;
    const { stderr } = proc.takeOutput();
    expect(seen.join("")).toBe(stderr);
    expect(stderr.startsWith("first é\n")).toBe(true);
    expect(proc.stderrTail(11)).toBe("last words"); // 10 bytes + the trailing newline, trimmed
    expect(Buffer.byteLength(proc.stderrTail())).toBeLessThanOrEqual(4096);
    expect(proc.stderrTail().endsWith("x last words")).toBe(true);
  });

  it("onStdout takes stdout raw (a line over maxLineBytes, blank lines, CR and an unfinished line as written); lines() is refused", async () => {
    const chunks: Buffer[] = [];
    await using proc = await nodeScript("process.stdout.write('x'.repeat(3000) + '\\n\\r\\n\\nend é')", {
      maxLineBytes: 1000,
      onStdout: (chunk) => {
        chunks.push(Buffer.from(chunk));
        throw new Error("observer failure is ignored");
      },
    });
    expect(() => proc.lines()).toThrow(expect.objectContaining({ op: "read", code: ErrCode.Invalid }) as Error);
    expect(() => proc.textBatches()).toThrow(expect.objectContaining({ op: "read", code: ErrCode.Invalid }) as Error);
    await proc.exited;
    expect(Buffer.concat(chunks).toString("utf8")).toBe(`${"x".repeat(3000)}\n\r\n\nend é`);
    expect(proc.takeOutput().stdout).toBe(`${"x".repeat(3000)}\n\r\n\nend é`);
  });

  it("exited resolves with the exit code and never rejects; terminate after exit returns the same info", async () => {
    const proc = await nodeScript("process.exit(7)");
    const info = await proc.exited;
    expect(info).toEqual({ code: 7, signal: null, forceKilled: false });
    await expect(proc.terminate()).resolves.toEqual(info);
    expect(proc.terminate()).toBe(proc.terminate());
    await proc.close();
    await proc[Symbol.asyncDispose]();
  });

  it("terminate sends SIGTERM to a cooperative child, which exits within the grace period", async () => {
    await using proc = await nodeScript("console.log('{}'); setInterval(() => {}, 1000)");
    for await (const _ of proc.lines()) break; // ready
    expect(await proc.terminate()).toEqual({ code: null, signal: "SIGTERM", forceKilled: false, terminated: true });
    expect(() => process.kill(proc.pid, 0)).toThrow(expect.objectContaining({ code: "ESRCH" })); // reaped by us
  });

  it("a CLI that handles SIGTERM and exits 143 reads as terminated, and its response exit as ended by the driver (not a crash)", async () => {
    await using proc = await nodeScript("process.on('SIGTERM', () => process.exit(143)); console.log('{}'); setInterval(() => {}, 1000)");
    for await (const _ of proc.lines()) break; // ready
    const info = await proc.terminate();
    expect(info).toEqual({ code: 143, signal: null, forceKilled: false, terminated: true });
    expect(responseExit(info)).toEqual({ code: 143, signal: null, endedByDriver: true });
    expect(responseExit({ code: 143, signal: null, forceKilled: false })).toEqual({ code: 143, signal: null });
  });

  it("forceKilledError is a FORCE_KILLED DriverError with op kill", () => {
    const err = forceKilledError("claude", "no exit 2000 ms after SIGTERM");
    expect(err).toBeInstanceOf(DriverError);
    expect(err).toMatchObject({ op: "kill", device: "claude", code: ErrCode.ForceKilled });
    expect(err.message).toBe("[FORCE_KILLED] kill: claude (no exit 2000 ms after SIGTERM)");
    expect(forceKilledError("codex").message).toBe("[FORCE_KILLED] kill: codex");
  });
});

/** The target of the link at `path`, or "" when it is gone. */
function readlinkOrEmpty(path: string): string {
  try {
    return readlinkSync(path);
  } catch {
    return "";
  }
}
