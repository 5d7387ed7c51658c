import { fileURLToPath, pathToFileURL } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { spawn } from "node:child_process";
import type { AgentEvent } from "adaptor";
import { harness, spawnedPid, type Harness } from "./support.js";
import { processesWithArgument } from "../support/prewarm.js";

// Real claude binary (pinned 2.1.332): its Bash tool starts commands in their own session, outside
// the process group the driver signals. Every such command must end with the run, a cancel, a
// force-kill, agent.close(), a SIGKILL of the CLI, and the host exiting. Survivors are found by
// scanning /proc for a process with a unique marker as a whole argument (a node timer; the CLI
// refuses a long `sleep`).

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

let markers = 0;
/** A unique marker argument of the long-running command. */
function marker(): string {
  markers += 1;
  return `adaptor-marker-${process.pid}-${Date.now()}-${markers}`;
}

/** The long-running Bash command: a node process carrying `m` as an argument. */
const longCommand = (m: string): string => `node -e "setInterval(() => {}, 1000)" ${m}`;

async function appeared(text: string, ms = 60_000): Promise<boolean> {
  for (const end = Date.now() + ms; Date.now() < end; await new Promise((r) => setTimeout(r, 100))) {
    if (processesWithArgument(text).length > 0) return true;
  }
  return false;
}

/** Survivors after up to `ms` of waiting for them to go. */
async function survivorsAfter(text: string, ms = 10_000): Promise<number[]> {
  for (const end = Date.now() + ms; Date.now() < end; await new Promise((r) => setTimeout(r, 100))) {
    if (processesWithArgument(text).length === 0) return [];
  }
  return processesWithArgument(text);
}

const unrestricted = { policy: { sandbox: "unrestricted" as const } };

async function drain(stream: AsyncIterable<AgentEvent>, events: AgentEvent[] = []): Promise<AgentEvent[]> {
  for await (const event of stream) events.push(event);
  return events;
}

describe.skipIf(process.platform !== "linux")("claude tool processes end with the run (real binary)", () => {
  it("run end: a background job the Bash tool left running is ended when the run ends", async () => {
    h = await harness();
    const m = marker();
    const result = await h.agent.run(`SHELL_CMD nohup ${longCommand(m)} >/dev/null 2>&1 & echo started`, unrestricted);
    expect(result.text).toContain("started");
    expect(await survivorsAfter(m)).toEqual([]);
  });

  it("cancel: a foreground Bash command (own session) is ended when the run is cancelled", async () => {
    h = await harness();
    const m = marker();
    const controller = new AbortController();
    const stream = h.agent.stream(`SHELL_CMD ${longCommand(m)}`, { ...unrestricted, signal: controller.signal });
    const drained = drain(stream);
    expect(await appeared(m)).toBe(true);
    controller.abort(new Error("cancelled by the test"));
    await drained;
    await expect(stream.result()).rejects.toThrow();
    expect(await survivorsAfter(m)).toEqual([]);
  }, 120_000);

  it("force-kill (killGraceMs 0): the Bash command is SIGKILLed with the CLI", async () => {
    h = await harness([], { killGraceMs: 0 });
    const m = marker();
    const controller = new AbortController();
    const stream = h.agent.stream(`SHELL_CMD ${longCommand(m)}`, { ...unrestricted, signal: controller.signal });
    const drained = drain(stream);
    expect(await appeared(m)).toBe(true);
    controller.abort(new Error("cancelled by the test"));
    await drained;
    await expect(stream.result()).rejects.toThrow();
    expect(await survivorsAfter(m)).toEqual([]);
  });

  it("agent.close() during a run: the Bash command is ended", async () => {
    h = await harness();
    const m = marker();
    const stream = h.agent.stream(`SHELL_CMD ${longCommand(m)}`, unrestricted);
    const drained = drain(stream);
    expect(await appeared(m)).toBe(true);
    await h.agent.close();
    await drained;
    await stream.result().catch(() => undefined);
    expect(await survivorsAfter(m)).toEqual([]);
  });

  it("CLI SIGKILLed by someone else: the Bash command it started is ended", async () => {
    h = await harness();
    const m = marker();
    const events: AgentEvent[] = [];
    const stream = h.agent.stream(`SHELL_CMD ${longCommand(m)}`, unrestricted);
    const drained = drain(stream, events);
    expect(await appeared(m)).toBe(true);
    const pid = spawnedPid(events);
    expect(pid).toBeGreaterThan(0);
    process.kill(pid as number, "SIGKILL");
    await drained;
    await stream.result().catch(() => undefined);
    expect(await survivorsAfter(m)).toEqual([]);
  });

  it.each(["process.exit", "SIGTERM", "SIGINT"] as const)("host ends by %s while the Bash command runs: it is ended too", async (how) => {
    h = await harness();
    const m = marker();
    const root = fileURLToPath(new URL("../../", import.meta.url));
    const adaptorUrl = pathToFileURL(fileURLToPath(new URL("../../packages/adaptor/src/index.ts", import.meta.url))).href;
    const claudeUrl = pathToFileURL(fileURLToPath(new URL("../../packages/claude/src/index.ts", import.meta.url))).href;
    const config = { cwd: h.env.workDir, env: h.env.env, inheritEnv: false, model: "claude-sonnet-4-5" };
    const script = `const { Agent } = await import(${JSON.stringify(adaptorUrl)});
const { claude } = await import(${JSON.stringify(claudeUrl)});
const agent = new Agent(claude(${JSON.stringify(config)}));
process.stdin.on("data", () => process.exit(0));
const stream = agent.stream(${JSON.stringify(`SHELL_CMD ${longCommand(m)}`)}, { policy: { sandbox: "unrestricted" } });
console.log("started");
for await (const event of stream) void event;`;
    // A plain child (not spawnCli), so this test process's own containment cannot mask the host's.
    const host = spawn(process.execPath, ["--conditions=source", "--import", "tsx", "--input-type=module", "-e", script], {
      cwd: root,
      stdio: ["pipe", "ignore", "ignore"],
    });
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      host.once("exit", (code, signal) => resolve({ code, signal })),
    );
    try {
      expect(await appeared(m)).toBe(true);
      if (how === "process.exit") host.stdin.write("exit\n");
      else host.kill(how);
      const exit = await exited;
      expect(how === "process.exit" ? exit.code : exit.signal).toBe(how === "process.exit" ? 0 : how);
    } finally {
      host.kill("SIGKILL");
    }
    expect(await survivorsAfter(m)).toEqual([]);
  });
});
