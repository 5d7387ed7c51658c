import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { MemoryThreadStore } from "@adaptor/threadstore";
import { Agent, ErrHumanDecisionModeUnsupported, ErrPolicyCapabilityUnsupported, isError, type AgentEvent, type Policy } from "adaptor";
import { hostileAcp, text, type HostileStep } from "./hostile-agent/hostile.js";

// An agent that keeps an "Always Allow" with its session (across processes, as the hostile agent's
// grants file does): a thread whose session got one under `inherit` is not continued under a
// policy that has every call asked, where the agent would run the command unasked.

let agent: Agent | undefined;
let dir: string | undefined;
afterEach(async () => {
  await agent?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
  agent = dir = undefined;
});

const inDefault = { currentModeId: "default", availableModes: [{ id: "default", name: "default" }] };
const done: HostileStep = { respond: { stopReason: "end_turn" } };

/** An agent whose every prompt runs `touch <dir>/<prompt>` as an execute call, asking unless the session has an "always" grant. */
function grantKeepingAgent(workDir: string): Agent {
  const grants = join(workDir, "grants.json");
  const prompt = (name: string): HostileStep[] => [
    {
      update: {
        sessionUpdate: "tool_call",
        toolCallId: name,
        title: "bash",
        kind: "execute",
        status: "pending",
        rawInput: { command: `touch ${name}` },
      },
    },
    { askOnce: { toolCallId: name, title: "bash", kind: "execute" }, grants },
    { command: ["touch", join(workDir, name)] },
    { update: { sessionUpdate: "tool_call_update", toolCallId: name, status: "completed" } },
    text(`ran ${name}`),
    done,
  ];
  const driver = hostileAcp(
    {
      "session/new": [{ respond: { sessionId: "hostile-session", modes: inDefault } }],
      "session/load": [{ respond: { modes: inDefault } }],
      "session/prompt:first": prompt("first"),
      "session/prompt:second": prompt("second"),
    },
    { askMode: "default", sandboxModes: { read_only: "default" } },
  );
  return new Agent(driver, { threadStore: new MemoryThreadStore() });
}

/** A thread turn: its events, the tools asked about, and its result or error. */
async function turn(prompt: string, policy: Policy | undefined) {
  const asked: string[] = [];
  const stream = agent!.thread("t").stream(prompt, {
    ...(policy ? { policy } : {}),
    onApproval: (request) => {
      asked.push(request.toolName ?? "");
      if ((request.choices ?? []).some((choice) => choice.key === "allow_always")) request.answer("allow_always");
      else request.approve();
    },
  });
  const events: AgentEvent[] = [];
  try {
    for await (const event of stream) events.push(event);
  } catch {
    // the result below says how it ended
  }
  const outcome = await stream.result().then(
    (result) => ({ result, error: undefined }),
    (error: unknown) => ({ result: undefined, error }),
  );
  return { events, asked, ...outcome };
}

const reused = (events: AgentEvent[]): boolean => events.some((e) => e.type === "notice" && e.message === "process reused");

describe("an 'Always Allow' given under inherit is not carried into a run that has every call asked (hostile agent)", () => {
  for (const [policy, is] of [
    [{ approvals: { permission: "ask" } }, ErrHumanDecisionModeUnsupported],
    [{ approvals: { permission: "auto_deny" } }, ErrHumanDecisionModeUnsupported],
    [{ sandbox: "read_only" }, ErrPolicyCapabilityUnsupported],
  ] as const)
    it(`under ${JSON.stringify(policy)} the thread's next turn is refused before launch: the command does not run unasked`, async () => {
      dir = mkdtempSync(join(tmpdir(), "acp-always-"));
      agent = grantKeepingAgent(dir);
      const first = await turn("first", undefined);
      expect(first.error).toBeUndefined();
      expect(first.asked).toEqual(["bash"]);
      expect(existsSync(join(dir, "first"))).toBe(true);
      const second = await turn("second", policy);
      expect(isError(second.error, is)).toBe(true);
      expect(existsSync(join(dir, "second"))).toBe(false);
      expect(second.events.some((e) => e.type === "process" && e.kind === "spawn")).toBe(false);
      expect(second.events.find((e) => e.type === "notice" && e.kind === "policy" && e.data?.["alwaysAllowed"] === true)).toBeDefined();
    });

  it("a turn that does not confine still reuses the parked process, where the grant holds (no ask)", async () => {
    dir = mkdtempSync(join(tmpdir(), "acp-always-"));
    agent = grantKeepingAgent(dir);
    await turn("first", undefined);
    const second = await turn("second", undefined);
    expect(second.error).toBeUndefined();
    expect(reused(second.events)).toBe(true);
    expect(second.asked).toEqual([]);
    expect(existsSync(join(dir, "second"))).toBe(true);
  });

  it("a session whose asks were answered once only is continued under ask, asking again", async () => {
    dir = mkdtempSync(join(tmpdir(), "acp-always-"));
    agent = grantKeepingAgent(dir);
    const asked: string[] = [];
    const stream = agent.thread("t").stream("first", { onApproval: (request) => (asked.push(request.toolName ?? ""), request.approve()) });
    await stream.result();
    const second = await turn("second", { approvals: { permission: "ask" } });
    expect(second.error).toBeUndefined();
    expect(second.asked).toEqual(["bash"]);
    expect(existsSync(join(dir, "second"))).toBe(true);
  });
});
