import { chmod, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { FeatureUnsupportedError } from "@adaptor/driver";
import { forgetCliVersions } from "@adaptor/driver/kit";
import { runDriver, type DriverRun } from "@adaptor/driver/testing";
import { findError } from "@adaptor/errors";
import { defaultClaudeCommand } from "../src/command.js";
import { MIN_CLAUDE_VERSION, PINNED_CLAUDE_VERSION } from "../src/index.js";
import { ClaudeSession } from "../src/session/claude-session.js";
import { driverHarness } from "./support.js";

// A version manager's shim (asdf, mise, volta) at a `command` path that never changes: which
// claude it runs, and what its `--version` prints, is chosen elsewhere. The pinned claude is the
// real binary; a claude older than the floor is a small fake that answers `initialize` naming
// its version and records every prompt it reads (fault injection: no older claude is installed).

/** The fake older claude: answers `initialize` with `claude_code_version`, records prompts, plays a turn. */
const OLD_CLAUDE = `
import { appendFileSync } from "node:fs";
import { createInterface } from "node:readline";
const [version, prompts] = process.argv.slice(2);
const write = (value) => process.stdout.write(JSON.stringify(value) + "\\n");
for await (const line of createInterface({ input: process.stdin })) {
  const message = JSON.parse(line);
  if (message.type === "control_request" && message.request.subtype === "initialize") {
    write({ type: "control_response", response: { subtype: "success", request_id: message.request_id, response: { claude_code_version: version } } });
  } else if (message.type === "user") {
    appendFileSync(prompts, line + "\\n");
    write({ type: "system", subtype: "init", session_id: "s-old", model: "old-model", tools: [] });
    write({ type: "result", subtype: "success", is_error: false, result: "old claude ran", session_id: "s-old", num_turns: 1 });
  }
}
`;

interface Shim {
  readonly command: string;
  /** The claude the shim runs from now on: the pinned one, or the fake at `version`. */
  use(claude: "pinned" | { readonly old: string }): Promise<void>;
  /** How many times `--version` was asked. */
  asked(): Promise<number>;
  /** The prompts the older claude read. */
  prompts(): Promise<string>;
}

async function shim(dir: string): Promise<Shim> {
  const command = join(dir, "claude");
  const chosen = join(dir, "chosen");
  const calls = join(dir, "calls");
  const prompts = join(dir, "prompts");
  await writeFile(join(dir, "old-claude.mjs"), OLD_CLAUDE);
  await writeFile(
    command,
    [
      "#!/bin/sh",
      `read VERSION KIND < "${chosen}"`,
      `if [ "$1" = "--version" ]; then echo x >> "${calls}"; echo "$VERSION (Claude Code)"; exit 0; fi`,
      `if [ "$KIND" = old ]; then exec node "${join(dir, "old-claude.mjs")}" "$VERSION" "${prompts}"; fi`,
      `exec "${defaultClaudeCommand()}" "$@"`,
      "",
    ].join("\n"),
  );
  await chmod(command, 0o755);
  const shimmed: Shim = {
    command,
    use: (claude) => writeFile(chosen, claude === "pinned" ? `${PINNED_CLAUDE_VERSION} pinned\n` : `${claude.old} old\n`),
    asked: async () => (await readFile(calls, "utf8").catch(() => "")).split("\n").filter(Boolean).length,
    prompts: () => readFile(prompts, "utf8").catch(() => ""),
  };
  await shimmed.use("pinned");
  return shimmed;
}

const spawns = (run: DriverRun): number => run.recording.ofType("process").filter((p) => p.kind === "spawn").length;
const versionWarnings = (run: DriverRun): unknown[] =>
  run.recording.events.flatMap(({ event }) =>
    event.type === "notice" && event.kind === "warning" && (event.data as { check?: unknown } | undefined)?.check === "version"
      ? [event]
      : [],
  );

beforeEach(() => forgetCliVersions());
afterEach(() => vi.restoreAllMocks());

/** The versions the driver read from started claudes' `initialize` answers, in order. */
function readVersions(): (string | undefined)[] {
  const read: (string | undefined)[] = [];
  const original = ClaudeSession.prototype.reportedVersion;
  vi.spyOn(ClaudeSession.prototype, "reportedVersion").mockImplementation(async function (this: ClaudeSession, signal) {
    const version = await original.call(this, signal);
    read.push(version);
    return version;
  });
  return read;
}

describe("claude behind a version manager's shim (a `command` whose file never changes)", () => {
  it("an unchanged claude is asked --version once: later runs start on the remembered answer, confirmed by the CLI, no warning", async () => {
    const dir = await mkdtemp(join(tmpdir(), "adaptor-claude-shim-"));
    const cli = await shim(dir);
    const h = await driverHarness([{ name: "hello", when: () => true, reply: { text: "hello" } }], { command: cli.command });
    const read = readVersions();
    try {
      for (let i = 0; i < 2; i++) {
        const run = await runDriver(h.driver, { prompt: "hi" });
        expect([run.error, run.response?.text, versionWarnings(run)]).toEqual([undefined, "hello", []]);
      }
      expect(await cli.asked()).toBe(1);
      // Each started claude named the remembered version in its initialize answer.
      expect(read).toEqual([PINNED_CLAUDE_VERSION, PINNED_CLAUDE_VERSION]);
    } finally {
      await h.close();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("switched to a claude older than the floor: refused before its first prompt, then before it starts; switched back: runs", async () => {
    const dir = await mkdtemp(join(tmpdir(), "adaptor-claude-shim-"));
    const cli = await shim(dir);
    const h = await driverHarness([{ name: "hello", when: () => true, reply: { text: "hello" } }], { command: cli.command });
    try {
      const first = await runDriver(h.driver, { prompt: "hi" });
      expect([first.error, first.response?.text]).toEqual([undefined, "hello"]);
      const modelRequests = h.server.requests.length;

      await cli.use({ old: "2.1.200" });
      // The remembered answer (2.1.332) starts it; its initialize answer names 2.1.200: refused, no prompt written.
      const started = await runDriver(h.driver, { prompt: "hi" });
      const refusal = findError(started.error, FeatureUnsupportedError);
      expect([refusal?.feature, refusal?.reason.startsWith(`claude 2.1.200 is older than ${MIN_CLAUDE_VERSION}`)]).toEqual([
        "cliVersion",
        true,
      ]);
      expect([await cli.prompts(), spawns(started), await cli.asked()]).toEqual(["", 1, 1]);
      // Forgotten: the next run asks --version again and is refused before claude starts.
      const asked = await runDriver(h.driver, { prompt: "hi" });
      expect(findError(asked.error, FeatureUnsupportedError)?.feature).toBe("cliVersion");
      expect([spawns(asked), await cli.asked(), await cli.prompts()]).toEqual([0, 2, ""]);
      expect(h.server.requests.length).toBe(modelRequests);

      // The user upgrades again: the refusal was not remembered.
      await cli.use("pinned");
      const fixed = await runDriver(h.driver, { prompt: "hi" });
      expect([fixed.error, fixed.response?.text, await cli.asked()]).toEqual([undefined, "hello", 3]);
    } finally {
      await h.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
