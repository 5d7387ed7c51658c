import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterEach, expect, it } from "vitest";
import { isNotice, type Agent, type AgentEvent } from "adaptor";
import { collect, expectCancelLeavesNothing, streamedText } from "./support.js";

/** One agent on the real binary, against a scripted model server, in a private home. */
export interface SuiteHarness {
  readonly agent: Agent;
  /** The agent's working directory. */
  readonly workDir: string;
  /** The private home (every process the agent starts carries it in its environment). */
  readonly home: string;
  close(): Promise<void>;
}

/** What the shared policy suite needs to know of one agent. */
export interface AgentSuite<H extends SuiteHarness> {
  /**
   * Starts the model server and the agent. The server answers "please say hello" with
   * "Hello from the scripted model.", {@link writePrompt} with the agent's write tool,
   * {@link touchPrompt} with its shell tool, and `SLOW_MS <n>` after n ms.
   */
  harness(): Promise<H>;
  /** The prompt that makes the model write `file` (absolute) with the agent's write tool. */
  writePrompt(h: H, file: string): string;
  /** The prompt that makes the model run `touch <file>` with the agent's shell tool. */
  touchPrompt(h: H, file: string): string;
  /** The write tool's name in approvals. */
  readonly writeTool: string;
  /** The shell tool's name in approvals. */
  readonly shellTool: string;
  /** The session mode the driver selects for `ask` and for `read_only`. */
  readonly modes: { readonly ask: string; readonly readOnly: string };
  /** Extra checks of the approved write turn (e.g. it went through the host's fs). */
  afterApprovedWrite?(h: H, events: readonly AgentEvent[]): void;
  /** Extra checks of the read_only turn. */
  afterReadOnly?(h: H, events: readonly AgentEvent[]): void;
}

const modeNotice = (events: readonly AgentEvent[], mode: string): boolean =>
  events.some((e) => e.type === "notice" && e.message === `session mode ${mode}`);

/**
 * The real-binary policy suite every ACP preset passes (call inside a `describe`): a text turn; a
 * write approved under `ask` (asked once, the file written, the Result saying how `ask` was
 * enforced); `ask` really asking (a denying handler stops the shell command: the file it would
 * write is absent); `read_only` blocking a write (the mode set and checked, the file absent);
 * cancel mid-turn leaving no process.
 */
export function agentPolicySuite<H extends SuiteHarness>(suite: AgentSuite<H>): { current(): H } {
  let h: H | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });
  const start = async (): Promise<H> => (h = await suite.harness());

  it("text turn: the final text and deltas; one session.init with the Result's session id and the cwd before the text", async () => {
    const { agent, workDir } = await start();
    const stream = agent.stream("please say hello");
    const events = await collect(stream);
    const result = await stream.result();
    expect(result.text).toBe("Hello from the scripted model.");
    expect(streamedText(events)).toBe(result.text);
    const inits = events.filter((event) => isNotice(event, "session.init"));
    expect(inits.map((event) => (isNotice(event, "session.init") ? event.data : undefined))).toEqual([
      { sessionId: result.sessionId, cwd: workDir },
    ]);
    expect(result.sessionId).toEqual(expect.stringMatching(/./));
    expect(events.findIndex((event) => event.type === "text-delta")).toBeGreaterThan(events.indexOf(inits[0]!));
  });

  it("tool approved under ask: the asking mode is set and checked; asked once, the file is written; the Result says how", async () => {
    const harness = await start();
    const file = join(harness.workDir, "approved.txt");
    const asked: string[] = [];
    const stream = harness.agent.stream(suite.writePrompt(harness, file), {
      policy: { approvals: { permission: "ask" } },
      onApproval: (request) => {
        asked.push(String(request.toolName));
        request.approve();
      },
    });
    const events = await collect(stream);
    const result = await stream.result();
    expect(modeNotice(events, suite.modes.ask)).toBe(true);
    expect(asked).toEqual([suite.writeTool]);
    expect(existsSync(file)).toBe(true);
    expect(result.enforcement).toEqual([
      expect.objectContaining({
        field: "approvals.permission",
        value: "ask",
        enforced: true,
        mechanisms: ["agent_mode", "approval", "host_capability"],
      }),
    ]);
    suite.afterApprovedWrite?.(harness, events);
  });

  it("ask really asks: a denying handler stops the shell command and the file it would write is absent", async () => {
    const harness = await start();
    const file = join(harness.workDir, "touched.txt");
    const asked: string[] = [];
    const stream = harness.agent.stream(suite.touchPrompt(harness, file), {
      policy: { approvals: { permission: "ask" } },
      onApproval: (request) => {
        asked.push(`${String(request.toolName)}: ${String((request.input as { command?: unknown }).command)}`);
        request.deny("no shell today");
      },
    });
    const events = await collect(stream);
    await stream.result();
    expect(asked).toEqual([`${suite.shellTool}: touch ${file}`]);
    expect(events.find((e) => e.type === "tool-result")).toMatchObject({ isError: true });
    expect(existsSync(file)).toBe(false);
  });

  it("read_only really blocks writes: the read-only mode is set and checked; the file is absent", async () => {
    const harness = await start();
    const file = join(harness.workDir, "blocked.txt");
    const stream = harness.agent.stream(suite.writePrompt(harness, file), {
      policy: { sandbox: "read_only" },
      onApproval: (request) => request.approve(),
    });
    const events = await collect(stream);
    const result = await stream.result();
    expect(modeNotice(events, suite.modes.readOnly)).toBe(true);
    expect(existsSync(file)).toBe(false);
    expect(result.enforcement).toEqual([
      expect.objectContaining({ field: "sandbox", value: "read_only", enforced: true, mechanisms: ["agent_mode", "host_capability"] }),
    ]);
    suite.afterReadOnly?.(harness, events);
  });

  it("cancel mid-turn: no process is left; the verdict is the abort", async () => {
    const harness = await start();
    await expectCancelLeavesNothing(harness.agent, "SLOW_MS 60000 slow one", harness.home);
  });

  return {
    current: () => {
      if (!h) throw new Error("no harness started");
      return h;
    },
  };
}
