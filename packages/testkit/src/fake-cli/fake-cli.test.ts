import { execFile } from "node:child_process";
import { accessSync, constants, readFileSync, statSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { fakeCliEnv, fakeCliPath, type FakeCliStep } from "./index.js";

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function run(env: Record<string, string>, input = ""): Promise<Run> {
  return new Promise((resolve) => {
    const child = execFile(fakeCliPath, ["--model", "x"], { env: { PATH: process.env["PATH"] ?? "", ...env } }, (err, stdout, stderr) => {
      resolve({ code: err ? ((err as { code?: number }).code ?? null) : 0, stdout, stderr });
    });
    child.stdin?.end(input);
  });
}

describe("fake CLI", () => {
  it("fakeCliPath is an executable Node script with a shebang", () => {
    expect(statSync(fakeCliPath).isFile()).toBe(true);
    expect(() => accessSync(fakeCliPath, constants.X_OK)).not.toThrow();
    expect(readFileSync(fakeCliPath, "utf8").startsWith("#!/usr/bin/env node\n")).toBe(true);
  });

  it("fakeCliEnv puts the steps as JSON in ADAPTOR_FAKE_CLI_SCENARIO", () => {
    const steps: FakeCliStep[] = [{ write: "a\n" }, { exit: 1 }];
    expect(fakeCliEnv(steps)).toEqual({ ADAPTOR_FAKE_CLI_SCENARIO: '[{"write":"a\\n"},{"exit":1}]' });
  });

  it("writes exact bytes to stdout and stderr and exits with the scenario's code", async () => {
    const result = await run(
      fakeCliEnv([
        { write: "é\n" },
        { writeBase64: Buffer.from([0x7b, 0x7d, 0x0a]).toString("base64") },
        { stderr: "warn\n" },
        { exit: 9 },
      ]),
    );
    expect(result).toEqual({ code: 9, stdout: "é\n{}\n", stderr: "warn\n" });
  });

  it("echoes stdin lines as JSON or string and exits 0 after the last step", async () => {
    const result = await run(
      fakeCliEnv([{ echoStdinLine: true }, { awaitStdinLine: true }, { echoStdinLine: true }]),
      '{"a":1}\nskip\nplain text\r\n',
    );
    expect(result).toEqual({ code: 0, stderr: "", stdout: '{"type":"echo","line":{"a":1}}\n{"type":"echo","line":"plain text"}\n' });
  });

  it("awaitStdinEnd drops the lines that arrive, goes on once stdin ends and exits 0; awaitStdinLine there exits 3", async () => {
    const ended = await run(fakeCliEnv([{ awaitStdinEnd: true }, { write: "after\n" }]), "one\ntwo\n");
    expect(ended).toEqual({ code: 0, stdout: "after\n", stderr: "" });
    const line = await run(fakeCliEnv([{ awaitStdinLine: true }, { awaitStdinLine: true }]), "one\n");
    expect(line.code).toBe(3);
  });

  it("reads the scenario from ADAPTOR_FAKE_CLI_SCENARIO_FILE", async () => {
    const dir = await mkdtemp(join(tmpdir(), "adaptor-fake-cli-"));
    try {
      const file = join(dir, "scenario.json");
      await writeFile(file, JSON.stringify([{ write: "from file\n" }]));
      expect(await run({ ADAPTOR_FAKE_CLI_SCENARIO_FILE: file })).toEqual({ code: 0, stdout: "from file\n", stderr: "" });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("exits 2 with a message on a malformed scenario", async () => {
    const result = await run({ ADAPTOR_FAKE_CLI_SCENARIO: '[{"explode":true}]' });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("unknown step explode");
    expect((await run({})).code).toBe(2);
  });
});
