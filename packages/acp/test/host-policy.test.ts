import { execFileSync, spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync } from "node:fs";
import { link, mkdir, mkdtemp, readdir, readFile, rm, symlink, truncate, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  Agent,
  ErrApprovalEditUnsupported,
  ErrHumanDecisionModeUnsupported,
  ErrInvalidDriverConfig,
  ErrPolicyCapabilityUnsupported,
  findError,
  isError,
  RunError,
  type AgentEvent,
} from "adaptor";
import { acp, AcpApprovalEditUnsupportedError, AcpModeNotAppliedError, validateAcpConfig, type AcpConfig } from "../src/index.js";
import { UNKNOWN_AGENT_SCOPE } from "../src/policy/acp-policy.js";
import { collect, processesWith } from "./support.js";

// The host side of the ACP policy (fs/*, terminal/*, session modes, edited approvals) against a
// scripted ACP agent (fault injection: no model; the real agents are in qwen/opencode/claude-agent-acp tests).

const AGENT = fileURLToPath(new URL("./fixtures/scripted-acp-agent.mjs", import.meta.url));
let dir: string;
/** A directory outside the working directory. */
let outside: string;
let agent: Agent | undefined;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "acp-host-"));
  outside = await mkdtemp(join(tmpdir(), "acp-outside-"));
});
afterEach(async () => {
  await agent?.close();
  agent = undefined;
  await rm(dir, { recursive: true, force: true });
  await rm(outside, { recursive: true, force: true });
});

function scripted(extra: Partial<AcpConfig> = {}, env: Record<string, string> = {}): Agent {
  agent = new Agent(
    acp({
      command: process.execPath,
      args: [AGENT],
      cwd: dir,
      inheritEnv: false,
      env: { PATH: process.env["PATH"] ?? "/usr/bin:/bin", ...env },
      askMode: "default",
      ...extra,
    }),
  );
  return agent;
}

const catchError = (f: () => unknown): unknown => {
  try {
    f();
  } catch (error) {
    return error;
  }
  return undefined;
};

const notices = (events: readonly AgentEvent[], kind: string): string[] =>
  events.flatMap((e) => (e.type === "notice" && e.kind === kind ? [e.message ?? ""] : []));

describe("session modes are checked after they are set", () => {
  it("a mode the agent does not take fails the run with AcpModeNotAppliedError before the prompt", async () => {
    const a = scripted({ sandboxModes: { read_only: "plan" } }, { FAKE_REPORT_MODE: "default" });
    const stream = a.stream("hello", { policy: { sandbox: "read_only" } });
    const events = await collect(stream);
    const error = await stream.result().catch((e: unknown) => e);
    const typed = findError(error, AcpModeNotAppliedError);
    expect(typed).toMatchObject({ dimension: "sandbox", value: "read_only", requestedMode: "plan", reportedMode: "default" });
    expect(isError(error, ErrPolicyCapabilityUnsupported)).toBe(true);
    expect(events.some((e) => e.type === "text-delta")).toBe(false);
  });

  it("a mode the session does not offer is never set: AcpModeNotAppliedError before the prompt names the modes it offers", async () => {
    // The agent takes any id it is given (as Nanocoder 1.30.0 does), and its answer is taken as the report.
    const a = scripted({ askMode: "Normal", modeConfirmedByAnswer: true });
    const stream = a.stream("hello", { policy: { approvals: { permission: "ask" } } });
    const events = await collect(stream);
    const error = await stream.result().catch((e: unknown) => e);
    const typed = findError(error, AcpModeNotAppliedError);
    expect(typed).toMatchObject({ dimension: "approvals.permission", value: "ask", requestedMode: "Normal", reportedMode: undefined });
    expect(typed?.offeredModes).toEqual(["default", "plan"]);
    expect(typed?.message).toContain('does not offer session mode "Normal" (it offers "default", "plan")');
    expect(isError(error, ErrPolicyCapabilityUnsupported)).toBe(true);
    expect(notices(events, "lifecycle").filter((m) => m.startsWith("session mode"))).toEqual([]);
    expect(events.some((e) => e.type === "text-delta")).toBe(false);
  });

  it("bestEffortPolicy: the run goes on and the Result reports the sandbox as not enforced", async () => {
    const a = scripted({ sandboxModes: { read_only: "plan" }, bestEffortPolicy: true }, { FAKE_REPORT_MODE: "default" });
    const result = await a.run("hello", { policy: { sandbox: "read_only" } });
    expect(result.text).toBe("ok");
    expect(result.enforcement).toEqual([
      expect.objectContaining({ field: "sandbox", value: "read_only", enforced: false, mechanisms: [] }),
    ]);
    expect(result.enforcement[0]?.detail).toMatch(/reports "default"/);
  });

  it("a mode the agent takes: the Result names the mode and the host rules", async () => {
    const result = await scripted({ sandboxModes: { read_only: "plan" } }).run("hello", { policy: { sandbox: "read_only" } });
    expect(result.enforcement).toEqual([
      {
        field: "sandbox",
        value: "read_only",
        enforced: true,
        mechanisms: ["agent_mode", "host_capability"],
        detail: expect.stringContaining('session mode "plan"') as string,
      },
    ]);
  });
});

describe("a mode set through the agent's mode config option is checked against the agent's own report", () => {
  // The agent answers session/set_config_option `{}` (no options listed), as Factory Droid 0.225.2 does,
  // and reports the mode in its updates.
  for (const updates of ["current_mode_update", "config_option_update", "current_mode_update,config_option_update"])
    it(`reported by ${updates.replace(",", " and ")}: the mode holds and the run goes on`, async () => {
      const a = scripted({ sandboxModes: { read_only: "plan" } }, { FAKE_MODE_OPTION: "1", FAKE_MODE_UPDATES: updates });
      const stream = a.stream("hello", { policy: { sandbox: "read_only" } });
      const events = await collect(stream);
      const result = await stream.result();
      expect(result.text).toBe("ok");
      expect(result.enforcement[0]).toMatchObject({ field: "sandbox", enforced: true });
      expect(notices(events, "lifecycle")).toContain("session mode plan");
    });

  it("another mode reported fails the run with AcpModeNotAppliedError naming it", async () => {
    const a = scripted({ sandboxModes: { read_only: "plan" } }, { FAKE_MODE_OPTION: "1", FAKE_REPORT_MODE: "default" });
    const error = await a.run("hello", { policy: { sandbox: "read_only" } }).catch((e: unknown) => e);
    expect(findError(error, AcpModeNotAppliedError)).toMatchObject({ requestedMode: "plan", reportedMode: "default" });
  });

  it("no report and an empty answer: AcpModeNotAppliedError (reports no mode); with modeConfirmedByAnswer the answer is the report", async () => {
    const env = { FAKE_MODE_OPTION: "1", FAKE_MODE_UPDATES: "none" };
    const error = await scripted({ sandboxModes: { read_only: "plan" } }, env)
      .run("hello", { policy: { sandbox: "read_only" } })
      .catch((e: unknown) => e);
    expect(findError(error, AcpModeNotAppliedError)).toMatchObject({ requestedMode: "plan", reportedMode: undefined });
    const result = await scripted({ sandboxModes: { read_only: "plan" }, modeConfirmedByAnswer: true }, env).run("hello", {
      policy: { sandbox: "read_only" },
    });
    expect(result.text).toBe("ok");
  });
});

describe("refused before launch", () => {
  it("a permission mode without askMode is HumanDecisionModeUnsupportedError; nothing is spawned", async () => {
    const stream = scripted({ askMode: undefined }).stream("hello", { policy: { approvals: { permission: "ask" } } });
    const events = await collect(stream);
    const error = await stream.result().catch((e: unknown) => e);
    expect(isError(error, ErrHumanDecisionModeUnsupported)).toBe(true);
    expect(events.some((e) => e.type === "process")).toBe(false);
  });

  it("a permission mode with a workspace_write mode (the agent does not ask there) is refused by the driver before spawning", async () => {
    const stream = scripted({ sandboxModes: { workspace_write: "autoEdit" } }).stream("hello", {
      policy: { sandbox: "workspace_write", approvals: { permission: "ask" } },
    });
    const events = await collect(stream);
    expect(isError(await stream.result().catch((e: unknown) => e), ErrHumanDecisionModeUnsupported)).toBe(true);
    expect(events.some((e) => e.type === "process")).toBe(false);
  });

  it("webSearch without a way to enforce it is PolicyCapabilityUnsupportedError; with bestEffortPolicy it runs and is reported", async () => {
    const refused = await scripted()
      .run("hello", { policy: { webSearch: "deny" } })
      .catch((e: unknown) => e);
    expect(isError(refused, ErrPolicyCapabilityUnsupported)).toBe(true);
    await agent?.close();
    const result = await scripted({ bestEffortPolicy: true }).run("hello", { policy: { webSearch: "deny" } });
    expect(result.enforcement).toEqual([expect.objectContaining({ field: "webSearch", value: "deny", enforced: false })]);
  });
});

describe("the host's fs and terminal under the run's policy", () => {
  it("read_only: fs/write_text_file and terminal/create are refused; nothing is written", async () => {
    const file = join(dir, "ro.txt");
    const a = scripted();
    const write = await a.run(`WRITE ${file}`, { policy: { sandbox: "read_only" } });
    expect(write.text).toMatch(/^refused: .*read_only/);
    const run = await a.run(`TERMINAL touch ${file}`, { policy: { sandbox: "read_only" } });
    expect(run.text).toMatch(/^refused: .*read_only/);
    expect(existsSync(file)).toBe(false);
    expect(run.enforcement[0]).toMatchObject({
      field: "sandbox",
      enforced: true,
      mechanisms: ["agent_mode", "approval", "host_capability"],
    });
  });

  it("no policy: the agent writes and runs commands through the host", async () => {
    const file = join(dir, "w.txt");
    const a = scripted();
    expect((await a.run(`WRITE ${file}`)).text).toBe("written");
    expect(existsSync(file)).toBe(true);
    expect((await a.run("TERMINAL echo from-the-host; exit 3")).text).toBe("exit 3: from-the-host");
  });

  it("ask: a command the agent did not ask about goes through the approval handler; denied, it does not run", async () => {
    const file = join(dir, "asked.txt");
    const asked: string[] = [];
    const result = await scripted().run(`TERMINAL touch ${file}`, {
      policy: { approvals: { permission: "ask" } },
      onApproval: (request) => {
        asked.push(`${request.toolName}:${String((request.input as { command?: unknown }).command)}`);
        request.deny("not now");
      },
    });
    expect(asked).toEqual([`terminal/create:touch ${file}`]);
    expect(result.text).toMatch(/^refused: .*not now/);
    expect(existsSync(file)).toBe(false);
  });

  it("workspace_write: a host write outside the working directory is refused, inside it is done", async () => {
    const a = scripted({ sandboxModes: { workspace_write: "default" } });
    const policy = { sandbox: "workspace_write" } as const;
    expect((await a.run(`WRITE ${join(outside, "x.txt")}`, { policy })).text).toMatch(/^refused: .*outside/);
    expect(existsSync(join(outside, "x.txt"))).toBe(false);
    expect((await a.run(`WRITE ${join(dir, "in.txt")}`, { policy })).text).toBe("written");
  });

  it("workspace_write: a write through a symlink leaving the working directory is refused and nothing outside changes; a link inside is followed", async () => {
    const a = scripted({ sandboxModes: { workspace_write: "default" } });
    const policy = { sandbox: "workspace_write" } as const;
    const victim = join(outside, "victim.txt");
    await writeFile(victim, "ORIGINAL\n");
    await symlink(victim, join(dir, "notes.md"));
    await symlink(join(outside, "created.txt"), join(dir, "dangling.md"));
    await symlink(outside, join(dir, "linkdir"));
    await writeFile(join(dir, "real.md"), "inside\n");
    await symlink(join(dir, "real.md"), join(dir, "inside-link.md"));
    await symlink("../" + basename(outside) + "/relative.txt", join(dir, "relative.md"));
    const written: Record<string, string> = {};
    for (const [label, path] of [
      ["symlinked file to an existing outside file", join(dir, "notes.md")],
      ["dangling symlink", join(dir, "dangling.md")],
      ["dangling relative symlink", join(dir, "relative.md")],
      ["symlinked directory", join(dir, "linkdir", "x.txt")],
      ["..", `${dir}/../${basename(outside)}/dotdot.txt`],
      ["absolute outside path", join(outside, "abs.txt")],
      ["symlink inside", join(dir, "inside-link.md")],
    ] as const) {
      written[label] = (await a.run(`WRITE ${path}`, { policy })).text.replace(/^refused: .*outside.*$/, "refused");
    }
    expect(written).toEqual({
      "symlinked file to an existing outside file": "refused",
      "dangling symlink": "refused",
      "dangling relative symlink": "refused",
      "symlinked directory": "refused",
      "..": "refused",
      "absolute outside path": "refused",
      "symlink inside": "written",
    });
    expect(await readFile(victim, "utf8")).toBe("ORIGINAL\n");
    expect((await readdir(outside)).sort()).toEqual(["victim.txt"]);
    expect(await readFile(join(dir, "real.md"), "utf8")).toBe("hello\n");
  });

  it("workspace_write: a symlink swapped in while the host asks about the write is refused at the write", async () => {
    const a = scripted({ sandboxModes: { workspace_write: "default" }, bestEffortPolicy: true });
    const victim = join(outside, "victim.txt");
    await writeFile(victim, "ORIGINAL\n");
    const path = join(dir, "swap.md");
    const result = await a.run(`WRITE ${path}`, {
      policy: { sandbox: "workspace_write", approvals: { permission: "ask" } },
      onApproval: async (request) => {
        await symlink(victim, path);
        request.approve();
      },
    });
    expect(result.text).toMatch(/^refused: .*outside/);
    expect(await readFile(victim, "utf8")).toBe("ORIGINAL\n");
  });

  it.runIf(process.platform === "linux")(
    "workspace_write: a directory on the path swapped back and forth with a symlink to an outside directory during 3000 writes lets none of them out",
    async () => {
      const a = scripted({ sandboxModes: { workspace_write: "default" } });
      await mkdir(join(dir, "sub"));
      await symlink(outside, join(dir, "link"));
      // Its own process renames sub <-> a symlink to the outside directory as fast as it can, the
      // whole time the agent writes <dir>/sub/f<i>.txt through the host.
      const swap = `const fs = require("fs"); const d = ${JSON.stringify(dir)}; process.stdout.write("swapping\\n");
        for (;;) { try { fs.renameSync(d + "/sub", d + "/subA"); fs.renameSync(d + "/link", d + "/sub");
          fs.renameSync(d + "/sub", d + "/link"); fs.renameSync(d + "/subA", d + "/sub"); } catch {} }`;
      const swapper = spawn(process.execPath, ["-e", swap], { stdio: ["ignore", "pipe", "inherit"] });
      try {
        await once(swapper.stdout, "data");
        const result = await a.run(`WRITE_MANY 3000 ${join(dir, "sub")}`, {
          policy: { sandbox: "workspace_write" },
          timeoutMs: 240_000,
        });
        const counts = JSON.parse(result.text) as { written: number; refused: number; failed: number };
        expect(counts.written + counts.refused + counts.failed).toBe(3000);
        expect(counts.written).toBeGreaterThan(0);
        swapper.kill("SIGKILL");
        await once(swapper, "exit");
        // Nothing escaped, and every write the host answered as done is in the real directory.
        expect(await readdir(outside)).toEqual([]);
        const real = existsSync(join(dir, "subA")) ? join(dir, "subA") : join(dir, "sub");
        expect((await readdir(real)).length).toBe(counts.written);
        expect(result.enforcement[0]).toMatchObject({ field: "sandbox", value: "workspace_write", enforced: true });
      } finally {
        swapper.kill("SIGKILL");
      }
    },
    300_000,
  );

  it("workspace_write: a write through a hard link to an outside file is refused and the outside file is unchanged; a plain file inside is still written", async () => {
    const a = scripted({ sandboxModes: { workspace_write: "default" } });
    const policy = { sandbox: "workspace_write" } as const;
    const victim = join(outside, "victim.txt");
    await writeFile(victim, "ORIGINAL\n");
    await link(victim, join(dir, "hardlink.txt"));
    const result = await a.run(`WRITE ${join(dir, "hardlink.txt")}`, { policy });
    expect(result.text).toBe(
      `refused: Invalid request: fs/write_text_file refused by the host: the run's sandbox is workspace_write and ${join(dir, "hardlink.txt")} has 2 hard links (one may be outside ${dir})`,
    );
    expect(await readFile(victim, "utf8")).toBe("ORIGINAL\n");
    // A file of its own inside the working directory is overwritten in full (no longer content left behind).
    await writeFile(join(dir, "plain.txt"), "a longer original line\n");
    expect((await a.run(`WRITE ${join(dir, "plain.txt")}`, { policy })).text).toBe("written");
    expect(await readFile(join(dir, "plain.txt"), "utf8")).toBe("hello\n");
    expect((await a.run(`WRITE ${join(dir, "new.txt")}`, { policy })).text).toBe("written");
    expect(await readFile(join(dir, "new.txt"), "utf8")).toBe("hello\n");
  });

  it("a write to a path ending in a slash is refused as invalid params, under any sandbox; nothing is created", async () => {
    await mkdir(join(dir, "sub"));
    const refusal = (path: string): string =>
      `refused: Invalid params: fs/write_text_file refused by the host: ${path} ends with "/" (a directory); the path must name a file`;
    const a = scripted({ sandboxModes: { workspace_write: "default" } });
    for (const policy of [{ sandbox: "workspace_write" } as const, undefined]) {
      for (const path of [`${dir}/sub/`, `${dir}/missing/`]) {
        expect((await a.run(`WRITE ${path}`, policy ? { policy } : {})).text).toBe(refusal(path));
      }
    }
    expect((await readdir(dir)).sort()).toEqual(["sub"]);
    expect(await readdir(join(dir, "sub"))).toEqual([]);
  });

  it("a write to an existing directory named without a trailing slash is refused as invalid params, under any sandbox; the directory is unchanged", async () => {
    await mkdir(join(dir, "sub"));
    const a = scripted({ sandboxModes: { workspace_write: "default" } });
    for (const policy of [{ sandbox: "workspace_write" } as const, undefined]) {
      expect((await a.run(`WRITE ${dir}/sub`, policy ? { policy } : {})).text).toBe(
        `refused: Invalid params: fs/write_text_file refused by the host: ${dir}/sub is a directory; the path must name a regular file`,
      );
    }
    expect(await readdir(join(dir, "sub"))).toEqual([]);
  });

  it("a FIFO or socket in the working directory is refused at once for a write and a read, under any sandbox (the open does not block)", async () => {
    const fifo = join(dir, "pipe");
    execFileSync("mkfifo", [fifo]);
    const socketPath = join(dir, "sock");
    const server = createServer();
    await new Promise<void>((done) => server.listen(socketPath, done));
    try {
      const a = scripted({ sandboxModes: { workspace_write: "default" } });
      const answers: string[] = [];
      for (const policy of [{ sandbox: "workspace_write" } as const, undefined])
        for (const [path, kind] of [
          [fifo, "a FIFO"],
          [socketPath, "a socket"],
        ] as const) {
          const options = policy ? { policy } : {};
          answers.push((await a.run(`WRITE ${path}`, options)).text, (await a.run(`READ ${path}`, options)).text);
          const refusal = (method: string): string =>
            `refused: Invalid params: ${method} refused by the host: ${path} is ${kind}; the path must name a regular file`;
          expect(answers.slice(-2)).toEqual([refusal("fs/write_text_file"), refusal("fs/read_text_file")]);
        }
      expect(answers).toHaveLength(8);
    } finally {
      await new Promise((done) => server.close(done));
    }
  }, 60_000);

  it("after reads of a FIFO the host's own file reads still work and Node exits by itself once the agent is closed", async () => {
    const fifo = join(dir, "pipe");
    execFileSync("mkfifo", [fifo]);
    await writeFile(join(dir, "plain.txt"), "hello");
    const acpIndex = new URL("../src/index.ts", import.meta.url).href;
    const script = `import { Agent } from "adaptor";
import { acp } from ${JSON.stringify(acpIndex)};
import { readFile } from "node:fs/promises";
const agent = new Agent(acp({ command: process.execPath, args: [${JSON.stringify(AGENT)}], cwd: ${JSON.stringify(dir)}, inheritEnv: false, env: { PATH: process.env.PATH }, askMode: "default" }));
const answers = await Promise.all([1, 2, 3, 4].map(() => agent.run(${JSON.stringify(`READ ${fifo}`)}).then((r) => r.text)));
await agent.close();
console.log(JSON.stringify({ answers: answers.map((a) => a.slice(0, 8)), plain: await readFile(${JSON.stringify(join(dir, "plain.txt"))}, "utf8") }));`;
    const tsx = fileURLToPath(new URL("../../../node_modules/tsx/dist/esm/index.mjs", import.meta.url));
    // Ends by itself or is killed at the safety timeout (then the exit status is not 0).
    const out = execFileSync(process.execPath, ["--conditions=source", "--import", tsx, "--input-type=module", "-e", script], {
      cwd: fileURLToPath(new URL("..", import.meta.url)),
      timeout: 90_000,
      encoding: "utf8",
    });
    expect(JSON.parse(out)).toEqual({ answers: Array(4).fill("refused:"), plain: "hello" });
  }, 120_000);

  it("a read larger than the host's read limit is refused with its size (a 5 GB sparse file is not read); its first lines are still served by line and limit", async () => {
    const huge = join(dir, "huge.log");
    await writeFile(huge, "first\nsecond\nthird\n");
    await truncate(huge, 5 * 1024 ** 3);
    const a = scripted();
    expect((await a.run(`READ ${huge}`)).text).toBe(
      `refused: Invalid params: fs/read_text_file refused by the host: ${huge} is 5368709120 bytes, more than the host reads (16777216 bytes); read it by line and limit`,
    );
    expect((await a.run(`READ_LINES 2 2 ${huge}`)).text).toBe("read: second\nthird");
    // Lines past the limit are not reached: the read stops at the limit instead of reading on.
    expect((await a.run(`READ_LINES 3 2 ${huge}`)).text).toBe(
      `refused: Invalid params: fs/read_text_file refused by the host: ${huge}: line 4 does not end within its first 16777216 bytes, the most the host reads`,
    );
    const small = join(dir, "small.txt");
    await writeFile(small, "a\nb\nc\n");
    expect((await a.run(`READ ${small}`)).text).toBe("read: a\nb\nc\n");
    expect((await a.run(`READ_LINES 2 1 ${small}`)).text).toBe("read: b");
  });

  it("a read of a character device (/dev/zero, endless) is refused at once, not read until memory runs out", async () => {
    expect((await scripted().run("READ /dev/zero")).text).toBe(
      "refused: Invalid params: fs/read_text_file refused by the host: /dev/zero is a character device; the path must name a regular file",
    );
  });

  it("workspace_write: the host's terminal is not offered (a command it spawns is not confined); terminal/create is refused, nothing is written outside", async () => {
    const file = join(outside, "term.txt");
    const result = await scripted({ sandboxModes: { workspace_write: "default" } }).run(`TERMINAL touch ${file}`, {
      policy: { sandbox: "workspace_write" },
    });
    expect(result.text).toBe('refused: "Method not found": terminal/create');
    expect(existsSync(file)).toBe(false);
    expect(result.enforcement).toEqual([
      {
        field: "sandbox",
        value: "workspace_write",
        enforced: true,
        mechanisms: ["agent_mode", "host_capability"],
        detail:
          'session mode "default"; the host refuses fs/write_text_file outside the working directory and does not offer its terminal (a command it spawns is not confined)' +
          UNKNOWN_AGENT_SCOPE,
      },
    ]);
  });

  it("workspace_write with ask (best effort): every host command is asked, even after the agent's own approved ask; denied, it does not run", async () => {
    const file = join(outside, "term.txt");
    const asked: string[] = [];
    const a = scripted({ sandboxModes: { workspace_write: "default" }, bestEffortPolicy: true });
    const result = await a.run(`ASK_TERMINAL touch ${file}`, {
      policy: { sandbox: "workspace_write", approvals: { permission: "ask" } },
      onApproval: (request) => {
        asked.push(`${request.toolName}:${String((request.input as { command?: unknown }).command)}`);
        // The agent's own ask is approved; the host's ask for the command it spawns is denied.
        if (request.toolName === "terminal/create") request.deny("outside the workspace");
        else request.approve();
      },
    });
    expect(asked).toEqual([`Run touch ${file}:touch ${file}`, `terminal/create:touch ${file}`]);
    expect(result.text).toMatch(/^refused: .*outside the workspace/);
    expect(existsSync(file)).toBe(false);
    expect(result.enforcement.find((e) => e.field === "sandbox")?.detail).toContain("asks before every terminal/create");
  });

  it("a terminal still running when the run is cancelled is ended with it: no process is left", async () => {
    const marker = `ACP_TERMINAL_MARKER_${process.pid}_${Date.now()}`;
    const a = scripted({}, { [marker]: "1" });
    const stream = a.stream("SLEEP_TERMINAL sleep 300");
    let running: number[] = [];
    for await (const event of stream)
      if (event.type === "text-delta" && event.text.startsWith("started")) {
        running = await processesWith(marker);
        stream.cancel();
      }
    // The agent and the shell of its terminal command (with its sleep) were running.
    expect(running.length).toBeGreaterThanOrEqual(2);
    const error = await stream.result().catch((e: unknown) => e);
    expect((error as Error).name).toBe("AbortError");
    expect(await processesWith(marker)).toEqual([]);
  });
});

describe("terminal output is the command's bytes, its last outputByteLimit of them", () => {
  /** What `command` really writes (stdout, then stderr), run directly by a shell: its last 40 characters and its length. */
  const realOutput = (command: string): { tail: string; bytes: number } => {
    const out = execFileSync("/bin/sh", ["-c", command], { maxBuffer: 256 * 1024 * 1024 });
    return { tail: out.toString("utf8").slice(-40), bytes: out.length };
  };
  const terminalBytes = async (limit: number | "-", command: string): Promise<unknown> =>
    JSON.parse((await scripted().run(`TERMINAL_BYTES ${limit} ${command}`, { timeoutMs: 240_000 })).text);

  it("a chatty command (seq 1 200000) completes and the run ends: the tail is the command's real tail, truncated", async () => {
    const command = "seq 1 200000";
    const real = realOutput(command);
    expect(real.bytes).toBeGreaterThan(1024 * 1024);
    expect(await terminalBytes("-", command)).toEqual({ exitCode: 0, truncated: true, bytes: 1024 * 1024, tail: real.tail });
  }, 300_000);

  it("yes capped by the output limit (millions of short lines) completes and the run ends, truncated to the limit", async () => {
    const command = "yes flood | head -c 30000000; echo end";
    const real = realOutput(command);
    expect(await terminalBytes(100_000, command)).toEqual({ exitCode: 0, truncated: true, bytes: 100_000, tail: real.tail });
  }, 300_000);

  it("a line longer than 64 MiB loses nothing after it: the tail and truncated are reported", async () => {
    const command = "head -c 70000000 /dev/zero | tr '\\0' a; echo; echo after-the-line";
    expect(await terminalBytes("-", command)).toEqual({
      exitCode: 0,
      truncated: true,
      bytes: 1024 * 1024,
      tail: `${"a".repeat(24)}\nafter-the-line\n`,
    });
  }, 300_000);

  it("blank lines, carriage returns and an unfinished last line are kept as written; not truncated under the limit", async () => {
    expect(await terminalBytes("-", "printf 'a\\r\\n\\nbé'")).toEqual({
      exitCode: 0,
      truncated: false,
      bytes: 7,
      tail: "a\r\n\nbé",
    });
  });

  it("an outputByteLimit beyond the host's maximum is lowered to it: 16 MiB by default, maxTerminalOutputBytes when set", async () => {
    const command = "head -c 20000000 /dev/zero | tr '\\0' a; echo end";
    // The agent asks to keep 1e12 bytes: the host keeps its own maximum, the command's tail.
    expect(await terminalBytes(1e12, command)).toEqual({
      exitCode: 0,
      truncated: true,
      bytes: 16 * 1024 * 1024,
      tail: `${"a".repeat(36)}end\n`,
    });
    await agent?.close();
    const capped = await scripted({ maxTerminalOutputBytes: 1000 }).run(`TERMINAL_BYTES 1000000000000 ${command}`, { timeoutMs: 240_000 });
    expect(JSON.parse(capped.text)).toEqual({ exitCode: 0, truncated: true, bytes: 1000, tail: `${"a".repeat(36)}end\n` });
  }, 300_000);

  it("maxTerminalOutputBytes outside 1..64 MiB is an invalid config", () => {
    const check = (maxTerminalOutputBytes: number) => () => validateAcpConfig("acp", { command: "x", maxTerminalOutputBytes });
    for (const value of [0, 64 * 1024 * 1024 + 1, 1.5]) expect(isError(catchError(check(value)), ErrInvalidDriverConfig)).toBe(true);
    expect(check(64 * 1024 * 1024)).not.toThrow();
  });

  it("a bound that cuts a character drops the whole character", async () => {
    expect(await terminalBytes(3, "printf 'xéé'")).toEqual({ exitCode: 0, truncated: true, bytes: 2, tail: "é" });
  });
});

describe("approvals with an edited input", () => {
  it("approve({ updatedInput }) on the agent's own ask throws ErrApprovalEditUnsupported; the tool is denied, nothing is written", async () => {
    const file = join(dir, "edited.txt");
    const thrown: unknown[] = [];
    const result = await scripted().run(`ASK_WRITE ${file}`, {
      onApproval: (request) => {
        expect(request.inputEditable).toBe(false);
        try {
          request.approve({ updatedInput: { path: join(dir, "other.txt") } });
        } catch (error) {
          thrown.push(error);
        }
      },
    });
    expect(thrown.map((error) => isError(error, ErrApprovalEditUnsupported))).toEqual([true]);
    expect(result.text).toBe("rejected");
    expect(existsSync(file)).toBe(false);
    expect(existsSync(join(dir, "other.txt"))).toBe(false);
  });

  it("through the SPI, an edited approve of the agent's own ask denies the tool and ends the run approval_denied (AcpApprovalEditUnsupportedError)", async () => {
    const file = join(dir, "spi.txt");
    const driver = acp({
      command: process.execPath,
      args: [AGENT],
      cwd: dir,
      inheritEnv: false,
      env: { PATH: process.env["PATH"] ?? "/usr/bin:/bin" },
    });
    try {
      const response = await driver.run(
        { runId: "spi", prompt: `ASK_WRITE ${file}` },
        { emit: () => undefined, requestApproval: () => Promise.resolve({ outcome: "approve", updatedInput: { path: file } }) },
        new AbortController().signal,
      );
      expect(response.failure?.reason).toBe("approval_denied");
      expect(findError(response.failure?.cause, AcpApprovalEditUnsupportedError)).toMatchObject({ toolCallId: "w1" });
      expect(response.text).toBe("rejected");
      expect(existsSync(file)).toBe(false);
    } finally {
      await driver.close();
    }
  });

  it("the host's own ask applies an edited input itself: the edited command runs, not the agent's", async () => {
    const asked = join(dir, "asked.txt");
    const edited = join(dir, "edited.txt");
    const result = await scripted().run(`TERMINAL touch ${asked}`, {
      policy: { approvals: { permission: "ask" } },
      onApproval: (request) => request.approve({ updatedInput: { command: `touch ${edited}` } }),
    });
    expect(result.text).toBe("exit 0: ");
    expect(existsSync(edited)).toBe(true);
    expect(existsSync(asked)).toBe(false);
  });

  it("the host's ask about a command shows the env the agent passes (BASH_ENV): a handler that refuses hidden variables stops it; an edit that drops env runs the command without it", async () => {
    const hidden = join(dir, "hidden.sh");
    const marker = join(dir, "bash-env-marker.txt");
    await writeFile(hidden, `echo ran > ${marker}\n`);
    const prompt = `TERMINAL_ENV BASH_ENV=${hidden} bash -c true`;
    const asks: unknown[] = [];
    const denied = await scripted().run(prompt, {
      policy: { approvals: { permission: "ask" } },
      onApproval: (request) => {
        asks.push({ title: request.title, input: request.input, editable: request.inputEditable });
        const { env } = request.input as { env?: unknown[] };
        if (env === undefined || env.length === 0) request.approve();
        else request.deny("variables of its own");
      },
    });
    expect(asks).toEqual([
      {
        title: `Run BASH_ENV=${hidden} /bin/sh -c bash -c true`,
        input: { command: "/bin/sh", args: ["-c", "bash -c true"], cwd: dir, env: [{ name: "BASH_ENV", value: hidden }] },
        editable: true,
      },
    ]);
    expect(denied.text).toMatch(/^refused: .*variables of its own/);
    expect(existsSync(marker)).toBe(false);
    // The host runs what it approved: the edited input without env.
    const edited = await scripted().run(prompt, {
      policy: { approvals: { permission: "ask" } },
      onApproval: (request) => request.approve({ updatedInput: { ...(request.input as object), env: [] } }),
    });
    // (bash, its stdin a socket, may also read ~/.bashrc: only the exit code is checked)
    expect(edited.text).toMatch(/^exit 0: /);
    expect(existsSync(marker)).toBe(false);
    // Approved as shown, the variable is passed (bash sources it).
    await scripted().run(prompt, { policy: { approvals: { permission: "ask" } }, onApproval: (request) => request.approve() });
    expect(await readFile(marker, "utf8")).toBe("ran\n");
  });

  it("a command with variables of its own is asked about by the host even after the agent's own approved ask (which does not show them)", async () => {
    const hidden = join(dir, "hidden.sh");
    const marker = join(dir, "bash-env-marker.txt");
    await writeFile(hidden, `echo ran > ${marker}\n`);
    const asked: string[] = [];
    const result = await scripted().run(`ASK_TERMINAL_ENV BASH_ENV=${hidden} bash -c true`, {
      policy: { approvals: { permission: "ask" } },
      onApproval: (request) => {
        asked.push(request.toolName ?? "");
        if (request.toolName === "terminal/create") request.deny("not with BASH_ENV");
        else request.approve();
      },
    });
    expect(asked).toEqual(["Run bash -c true", "terminal/create"]);
    expect(result.text).toMatch(/^refused: .*not with BASH_ENV/);
    expect(existsSync(marker)).toBe(false);
  });

  it("an edited path of the host's own write ask is held to the sandbox: outside the workspace it is refused", async () => {
    // workspace_write with ask needs best effort (the agent's mode acts unasked); the host's own rules still hold.
    const a = scripted({ sandboxModes: { workspace_write: "default" }, bestEffortPolicy: true });
    const result = await a.run(`WRITE ${join(dir, "in.txt")}`, {
      policy: { sandbox: "workspace_write", approvals: { permission: "ask" } },
      onApproval: (request) => request.approve({ updatedInput: { path: join(outside, "x.txt"), content: "edited\n" } }),
    });
    expect(result.text).toMatch(/^refused: .*outside/);
    expect(existsSync(join(outside, "x.txt"))).toBe(false);
    expect(existsSync(join(dir, "in.txt"))).toBe(false);
  });

  it("a plain approve lets the write through the host", async () => {
    const file = join(dir, "plain.txt");
    const stream = scripted().stream(`ASK_WRITE ${file}`, {
      policy: { approvals: { permission: "ask" } },
      onApproval: (request) => request.approve(),
    });
    const events = await collect(stream);
    expect((await stream.result()).text).toBe("written");
    // The agent asked first, so the host did not ask again for its write.
    expect(events.filter((e) => e.type === "approval-request")).toHaveLength(1);
    expect(notices(events, "host")).toEqual([`fs/write_text_file ${file}`]);
  });
});

describe("an approved ask of the agent covers only the write or command it named, once", () => {
  /** Runs `steps` (the scripted agent's STEPS) under `ask`: the agent's asks approved, the host's own asks denied. */
  async function steps(list: readonly Record<string, unknown>[]): Promise<{ results: string[]; hostAsks: string[] }> {
    const hostAsks: string[] = [];
    const result = await scripted().run(`STEPS ${JSON.stringify(list)}`, {
      policy: { approvals: { permission: "ask" } },
      onApproval: (request) => {
        if (request.toolName !== "fs/write_text_file" && request.toolName !== "terminal/create") return request.approve();
        const input = request.input as { path?: string; command?: string; args?: string[] };
        hostAsks.push(`${request.toolName} ${input.path ?? [input.command, ...(input.args ?? [])].join(" ")}`);
        request.deny("host said no");
      },
    });
    return { results: JSON.parse(result.text) as string[], hostAsks };
  }

  it("an approved `ls` does not pay for another command: the host asks, denies, and it does not run", async () => {
    const marker = join(dir, "marker.txt");
    const run = await steps([
      { ask: { title: "ls", kind: "execute", rawInput: { command: "ls" } } },
      { terminal: { command: "/bin/sh", args: ["-c", `echo pwn > ${marker}`] } },
    ]);
    expect(run.results).toEqual(["yes", expect.stringMatching(/^refused: .*host said no/)]);
    expect(run.hostAsks).toEqual([`terminal/create /bin/sh -c echo pwn > ${marker}`]);
    expect(existsSync(marker)).toBe(false);
  });

  it("an approved execute ask covers the command it named (also run as sh -c), once; with its own env it is asked", async () => {
    const a = join(dir, "a.txt");
    const run = await steps([
      { ask: { title: `touch ${a}`, kind: "execute", rawInput: { command: `touch ${a}` } } },
      { terminal: { command: "/bin/sh", args: ["-c", `touch ${a}`] } },
      { terminal: { command: `touch ${a}` } },
      { ask: { title: `touch ${a}`, kind: "execute", rawInput: { command: `touch ${a}` } } },
      { terminal: { command: `touch ${a}`, env: [{ name: "PATH", value: dir }] } },
    ]);
    expect(run.results).toEqual([
      "yes",
      "exit 0",
      expect.stringMatching(/^refused: .*host said no/),
      "yes",
      expect.stringMatching(/^refused/),
    ]);
    expect(run.hostAsks).toEqual([`terminal/create touch ${a}`, `terminal/create touch ${a}`]);
  });

  it("an approved edit of one file does not pay for a write of another; it covers its own file once", async () => {
    const notes = join(dir, "notes.md");
    const evil = join(dir, "evil.sh");
    const run = await steps([
      { ask: { title: "Edit notes.md", kind: "edit", locations: [{ path: notes }], rawInput: {} } },
      { write: evil },
      { write: notes },
      { write: notes },
    ]);
    expect(run.results).toEqual(["yes", expect.stringMatching(/^refused: .*host said no/), "written", expect.stringMatching(/^refused/)]);
    expect(run.hostAsks).toEqual([`fs/write_text_file ${evil}`, `fs/write_text_file ${notes}`]);
    expect(existsSync(evil)).toBe(false);
  });

  it("an approved edit naming two files covers one write of each", async () => {
    const [one, two] = [join(dir, "one.txt"), join(dir, "two.txt")];
    const run = await steps([
      { ask: { title: "Edit two files", kind: "edit", locations: [{ path: one }, { path: two }] } },
      { write: two },
      { write: one },
      { write: one },
    ]);
    expect(run.results).toEqual(["yes", "written", "written", expect.stringMatching(/^refused/)]);
    expect(run.hostAsks).toEqual([`fs/write_text_file ${one}`]);
  });

  it("an edit ask naming the file in its input (file_path, relative to the working directory) covers that file", async () => {
    const run = await steps([
      { ask: { title: "WriteFile", kind: "edit", rawInput: { file_path: "sub/../w.txt" } } },
      { write: join(dir, "w.txt") },
    ]);
    expect(run.results).toEqual(["yes", "written"]);
    expect(run.hostAsks).toEqual([]);
  });

  it("approved reads pay for neither a command nor a write of the file they read", async () => {
    const notes = join(dir, "notes.md");
    const marker = join(dir, "marker.txt");
    const read = {
      ask: { title: "read notes", kind: "read", locations: [{ path: notes }], rawInput: { path: notes, command: `echo pwn > ${marker}` } },
    };
    const run = await steps([read, read, { terminal: { command: `echo pwn > ${marker}` } }, { write: notes }]);
    expect(run.results).toEqual(["yes", "yes", expect.stringMatching(/^refused/), expect.stringMatching(/^refused/)]);
    expect(run.hostAsks).toEqual([`terminal/create echo pwn > ${marker}`, `fs/write_text_file ${notes}`]);
    expect(await readdir(dir)).toEqual([]);
  });
});

describe("a host capability not advertised is not served", () => {
  it("hostCapabilities: false: fs/read_text_file, fs/write_text_file and terminal/* are answered method-not-found; nothing is read, written or run", async () => {
    const secret = join(dir, "secret.txt");
    await writeFile(secret, "do-not-read\n");
    const written = join(dir, "w.txt");
    const ran = join(dir, "ran.txt");
    const a = scripted({ hostCapabilities: false });
    const read = await a.run(`READ ${secret}`);
    expect(read.text).toBe('refused: "Method not found": fs/read_text_file');
    expect((await a.run(`WRITE ${written}`)).text).toBe('refused: "Method not found": fs/write_text_file');
    expect((await a.run(`TERMINAL touch ${ran}`)).text).toBe('refused: "Method not found": terminal/create');
    expect((await a.run("TERMINAL_IDS terminal-1")).text).toBe(
      ["terminal/output", "terminal/wait_for_exit", "terminal/kill", "terminal/release"]
        .map((method) => `refused: "Method not found": ${method}`)
        .join("; "),
    );
    expect(existsSync(written)).toBe(false);
    expect(existsSync(ran)).toBe(false);
  });

  it("the host still serves them when they are advertised (the default)", async () => {
    const file = join(dir, "r.txt");
    await writeFile(file, "hello host\n");
    expect((await scripted().run(`READ ${file}`)).text).toBe("read: hello host\n");
  });
});

describe("a command the host itself asked about is the ask of the call that ran it", () => {
  /** Runs `steps` under `ask`, approving every ask (the host's own too); the error, if the run failed. */
  async function steps(list: readonly Record<string, unknown>[]): Promise<{ text?: string; error?: unknown; hostAsks: string[] }> {
    const hostAsks: string[] = [];
    try {
      const result = await scripted().run(`STEPS ${JSON.stringify(list)}`, {
        policy: { approvals: { permission: "ask" } },
        onApproval: (request) => {
          if (request.toolName === "terminal/create") hostAsks.push(request.title);
          request.approve();
        },
      });
      return { text: result.text, hostAsks };
    } catch (error) {
      return { error, hostAsks };
    }
  }

  it("an unasked execute call whose command the host asked about through terminal/create and was approved passes", async () => {
    const a = join(dir, "a.txt");
    const run = await steps([
      { call: { toolCallId: "c1", title: "Bash", kind: "execute", rawInput: { command: `touch ${a}` } } },
      { terminal: { command: "touch", args: [a] }, toolCallId: "c1" },
    ]);
    expect(run.error).toBeUndefined();
    expect(JSON.parse(run.text ?? "[]")).toEqual(["announced", "exit 0"]);
    expect(run.hostAsks).toEqual([`Run touch ${a}`]);
    expect(existsSync(a)).toBe(true);
  });

  it("one host ask answers for one call: a second unasked call naming the same terminal fails the run", async () => {
    const a = join(dir, "a.txt");
    const run = await steps([
      { call: { toolCallId: "c1", title: "Bash", kind: "execute", rawInput: { command: `touch ${a}` } } },
      { call: { toolCallId: "c2", title: "Bash", kind: "execute", rawInput: { command: "rm -rf x" } } },
      { terminal: { command: "touch", args: [a] }, toolCallId: "c1", alsoNamedBy: ["c2"] },
    ]);
    expect(run.error).toBeInstanceOf(RunError);
    expect((run.error as RunError).reason).toBe("policy_violation");
    expect((run.error as RunError).details).toMatchObject({ toolCallId: "c2", fields: ["approvals.permission"] });
  });
});

describe("an execute call whose command the host refused in its terminal did not run", () => {
  /** Runs `steps` under `policy`, the host's own terminal asks denied (the agent asks about nothing); the error, if the run failed. */
  async function steps(
    policy: NonNullable<Parameters<Agent["run"]>[1]>["policy"],
    list: readonly Record<string, unknown>[],
  ): Promise<{ results?: string[]; enforced?: boolean; error?: unknown; hostAsks: string[]; events: AgentEvent[] }> {
    const hostAsks: string[] = [];
    const stream = scripted().stream(`STEPS ${JSON.stringify(list)}`, {
      policy,
      onApproval: (request) => {
        hostAsks.push(request.title);
        request.deny("not now");
      },
    });
    const events = await collect(stream);
    try {
      const result = await stream.result();
      return { results: JSON.parse(result.text) as string[], enforced: result.enforcement[0]?.enforced, hostAsks, events };
    } catch (error) {
      return { error, hostAsks, events };
    }
  }
  const ls = (id: string, extra: Record<string, unknown> = {}) => ({
    call: { toolCallId: id, title: "`ls`", kind: "execute", rawInput: { command: "ls" }, ...extra },
  });
  const refusedNotices = (events: readonly AgentEvent[]) =>
    events.flatMap((e) =>
      e.type === "notice" && (e.data as { refusedTerminal?: boolean } | undefined)?.refusedTerminal ? [e.message] : [],
    );

  for (const [name, policy] of [
    ["ask (the host's own ask denied)", { approvals: { permission: "ask" } }],
    ["auto_deny", { approvals: { permission: "auto_deny" } }],
    ["read_only (refused by policy)", { sandbox: "read_only" }],
  ] as const)
    it(`${name}: an unasked execute call reported failed after the host refused its terminal is no violation; the policy is enforced`, async () => {
      const run = await steps(policy, [ls("c1"), { terminal: { command: "ls" }, toolCallId: "c1" }]);
      expect(run.error).toBeUndefined();
      expect(run.results).toEqual(["announced", expect.stringMatching(/^refused: .*terminal\/create refused by the host/)]);
      expect(run.enforced).toBe(true);
      expect(run.hostAsks).toEqual(name.startsWith("ask") ? ["Run ls"] : []);
      expect(refusedNotices(run.events)).toEqual(["`ls`: the host refused its command's terminal (the call did not run)"]);
    });

  it("the refused command run through sh -c is the call's command too", async () => {
    const run = await steps({ sandbox: "read_only" }, [
      ls("c1"),
      { terminal: { command: "/bin/bash", args: ["-lc", "ls"] }, toolCallId: "c1" },
    ]);
    expect(run.error).toBeUndefined();
    expect(run.enforced).toBe(true);
  });

  /** The verdict of a run that must fail: policy_violation naming the call. */
  const violation = (run: { error?: unknown }, toolCallId: string) => {
    expect(run.error).toBeInstanceOf(RunError);
    expect((run.error as RunError).reason).toBe("policy_violation");
    expect((run.error as RunError).details).toMatchObject({ toolCallId });
  };

  it("a refused terminal whose command the call's input does not name excuses nothing", async () => {
    const run = await steps({ sandbox: "read_only" }, [
      { call: { toolCallId: "c1", title: "`ls`", kind: "execute", rawInput: { command: "ls -la" } } },
      { terminal: { command: "ls" }, toolCallId: "c1" },
    ]);
    violation(run, "c1");
  });

  it("two open calls naming the refused command: the refusal is neither's, the failed one is a violation", async () => {
    const run = await steps({ sandbox: "read_only" }, [ls("c1"), ls("c2"), { terminal: { command: "ls" }, toolCallId: "c1" }]);
    violation(run, "c1");
  });

  it("a refusal before the call was announced is not the call's", async () => {
    // An `ls` refused while no call named it, then c1 announced: c1's own refused terminal excuses it ...
    const own = await steps({ sandbox: "read_only" }, [
      { terminal: { command: "ls" } },
      ls("c1"),
      { terminal: { command: "ls" }, toolCallId: "c1" },
    ]);
    expect(own.error).toBeUndefined();
    // ... the earlier refusal does not: c1 failed after a refused terminal of another command.
    const earlier = await steps({ sandbox: "read_only" }, [
      { terminal: { command: "ls" } },
      ls("c1"),
      { terminal: { command: "pwd" }, toolCallId: "c1" },
    ]);
    violation(earlier, "c1");
  });

  it("a call the agent reports completed after its terminal was refused ran something else: a violation", async () => {
    const run = await steps({ approvals: { permission: "ask" } }, [
      ls("c1"),
      { terminal: { command: "ls" }, toolCallId: "c1", onRefusal: "completed" },
    ]);
    violation(run, "c1");
    expect((run.error as RunError).message).toContain("ran without a permission ask");
  });

  it("a call the agent reports failed with an exit status after its terminal was refused ran the command itself: a violation", async () => {
    const run = await steps({ sandbox: "read_only" }, [
      ls("c1"),
      { terminal: { command: "ls" }, toolCallId: "c1", refusalUpdate: { rawOutput: { exit_code: 2, output: "ls: cannot access" } } },
    ]);
    violation(run, "c1");
  });

  it("a call reported running before its terminal was refused, or of another acting kind, is still a violation", async () => {
    violation(
      await steps({ sandbox: "read_only" }, [ls("c1", { status: "in_progress" }), { terminal: { command: "ls" }, toolCallId: "c1" }]),
      "c1",
    );
    violation(
      await steps({ sandbox: "read_only" }, [
        { call: { toolCallId: "c1", title: "write", kind: "edit", rawInput: { command: "ls" } } },
        { terminal: { command: "ls" }, toolCallId: "c1" },
      ]),
      "c1",
    );
  });
});
