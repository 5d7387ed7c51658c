import { existsSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runDriver } from "@adaptor/driver/testing";
import { ErrHumanDecisionModeUnsupported, ErrPolicyCapabilityUnsupported, type RunPolicy } from "@adaptor/driver";
import { isError } from "@adaptor/errors";
import { Agent, type AgentEvent } from "adaptor";
import { alive, codexHarness, ESCALATE_RULE, type CodexHarness } from "./support.js";

// Each policy value the descriptor declares, proved on the real codex binary (issue 7 §1 "Policy").

let h: CodexHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const WRITE_BOTH = "SHELL_CMD echo in > in.txt; echo out > ../outside.txt";

async function writeWith(policy: RunPolicy): Promise<{ inside: boolean; outside: boolean; output: string; asks: number }> {
  h = await codexHarness({ outsideTmp: true });
  const run = await runDriver(h.driver, { prompt: WRITE_BOTH, policy });
  expect(run.response?.failure).toBeUndefined();
  expect(run.response?.enforcement?.[0]).toMatchObject({
    field: "sandbox",
    value: policy.sandbox,
    enforced: true,
    mechanisms: ["cli_config"],
  });
  return {
    inside: existsSync(join(h.env.workDir, "in.txt")),
    outside: existsSync(join(h.env.root, "outside.txt")),
    output: run.recording.ofType("tool-result")[0]?.output ?? "",
    asks: run.recording.asks.length,
  };
}

/**
 * Through the SDK a refused policy rejects the run with the same error; the host's approval handler
 * is never called, no model request is made and `file` (what the escalated command writes) is absent.
 */
async function expectRefusedThroughSdk(harness: CodexHarness, policy: RunPolicy, file: string): Promise<void> {
  let asked = 0;
  const agent = new Agent(harness.driver, { policy, onApproval: (request) => (asked++, request.approve()) });
  const refused = await agent.run(`ESCALATE_CMD echo x > ${file}`).catch((error: unknown) => error);
  await agent.close();
  expect(isError(refused, ErrPolicyCapabilityUnsupported)).toBe(true);
  expect(asked).toBe(0);
  expect(harness.server.responses()).toHaveLength(0);
  expect(existsSync(join(harness.env.workDir, file))).toBe(false);
}

describe("codex run policy on the real binary", () => {
  it("sandbox read_only: a command cannot create a file, inside the workspace or out", async () => {
    const result = await writeWith({ sandbox: "read_only", approvals: { permission: "auto_approve" } });
    expect(result).toMatchObject({ inside: false, outside: false, asks: 0 });
    expect(result.output, "the shell's own complaint, when codex reported the output").toMatch(/^$|Read-only file system/);
  });

  it("sandbox workspace_write: writes inside the workspace, not next to it", async () => {
    const result = await writeWith({ sandbox: "workspace_write", approvals: { permission: "auto_approve" } });
    expect(result).toMatchObject({ inside: true, outside: false, asks: 0 });
  });

  it("sandbox unrestricted: writes outside the workspace too", async () => {
    const result = await writeWith({ sandbox: "unrestricted", approvals: { permission: "auto_approve" } });
    expect(result).toMatchObject({ inside: true, outside: true, asks: 0 });
  });

  it("webSearch deny removes the web_search tool; allow offers it", async () => {
    h = await codexHarness();
    await runDriver(h.driver, { prompt: "no web", policy: { webSearch: "deny" } });
    await runDriver(h.driver, { prompt: "web", policy: { webSearch: "allow" } });
    const [denied, allowed] = h.server.responses();
    expect(denied?.view.toolNames).not.toContain("web_search");
    expect(allowed?.view.toolNames).toContain("web_search");
  });

  it("permission auto_deny through the SDK: codex asks, the SDK declines, nothing is written", async () => {
    h = await codexHarness();
    const agent = new Agent(h.driver, { policy: { approvals: { permission: "auto_deny" } } });
    const stream = agent.stream("SHELL_CMD echo no > no.txt");
    const events: AgentEvent[] = [];
    for await (const event of stream) events.push(event);
    await stream.result();
    expect(events.some((e) => e.type === "approval-request")).toBe(false);
    expect(existsSync(join(h.env.workDir, "no.txt"))).toBe(false);
    expect(events.find((e) => e.type === "tool-result")).toMatchObject({ isError: true });
    await agent.close();
  });

  it("permission auto_approve through the SDK: codex asks nothing (approval policy never)", async () => {
    h = await codexHarness();
    const agent = new Agent(h.driver, { policy: { sandbox: "workspace_write", approvals: { permission: "auto_approve" } } });
    const stream = agent.stream("SHELL_CMD echo yes > yes.txt");
    const events: AgentEvent[] = [];
    for await (const event of stream) events.push(event);
    await stream.result();
    expect(events.some((e) => e.type === "approval-request" || (e.type === "notice" && e.kind.startsWith("approval")))).toBe(false);
    expect(existsSync(join(h.env.workDir, "yes.txt"))).toBe(true);
    await agent.close();
  });

  it("permission inherit without a sandbox: codex's own policy decides and what it asks reaches the host", async () => {
    h = await codexHarness();
    const run = await runDriver(h.driver, { prompt: "PATCH_FILE inherit.txt", policy: { approvals: { permission: "inherit" } } });
    expect(run.response?.failure).toBeUndefined();
    expect(run.recording.asks.map((a) => a.toolName)).toEqual(["apply_patch"]);
    expect(existsSync(join(h.env.workDir, "inherit.txt"))).toBe(true);
  });

  it("undeclared values are refused before launch with their identities", async () => {
    h = await codexHarness();
    const browser = await runDriver(h.driver, { prompt: "x", policy: { browser: "allow" } });
    expect(isError(browser.error, ErrPolicyCapabilityUnsupported)).toBe(true);
    const timeout = await runDriver(h.driver, { prompt: "x", policy: { activeExecutionTimeoutMs: 1000 } });
    expect(isError(timeout.error, ErrPolicyCapabilityUnsupported)).toBe(true);
    const question = await runDriver(h.driver, { prompt: "x", policy: { approvals: { plan_review: "ask" } } });
    expect(isError(question.error, ErrHumanDecisionModeUnsupported)).toBe(true);
    expect([...browser.recording.events, ...timeout.recording.events, ...question.recording.events]).toEqual([]);
    expect(h.server.responses()).toHaveLength(0);
  });
});

describe("codex: a confining sandbox with permission ask (real binary)", () => {
  it.each(["read_only", "workspace_write"] as const)(
    "sandbox %s with ask is refused before launch with PolicyCapabilityUnsupportedError: nothing starts, no file",
    async (sandbox) => {
      h = await codexHarness({ rules: [ESCALATE_RULE] });
      const policy: RunPolicy = { sandbox, approvals: { permission: "ask" } };
      const direct = await runDriver(h.driver, { prompt: "ESCALATE_CMD echo x > refused.txt", policy });
      expect(isError(direct.error, ErrPolicyCapabilityUnsupported)).toBe(true);
      expect(direct.error).toMatchObject({ driver: "codex", dimension: "sandbox", value: sandbox });
      expect(String((direct.error as Error).message)).toContain("outside its sandbox");
      expect(direct.recording.events).toEqual([]);
      await expectRefusedThroughSdk(h, policy, "refused.txt");
    },
  );

  it("bestEffortPolicy: read_only with ask runs; an approved escalated command writes, and the report lists the sandbox not enforced", async () => {
    h = await codexHarness({ rules: [ESCALATE_RULE], config: { bestEffortPolicy: true } });
    const run = await runDriver(h.driver, {
      prompt: "ESCALATE_CMD echo x > escaped.txt",
      policy: { sandbox: "read_only", approvals: { permission: "ask" } },
    });
    expect(run.response?.failure).toBeUndefined();
    // One ask, and nothing in it says the command leaves the sandbox: that is why ask is refused.
    expect(run.recording.asks).toHaveLength(1);
    expect(run.recording.asks[0]?.details).not.toHaveProperty("reason");
    expect(existsSync(join(h.env.workDir, "escaped.txt"))).toBe(true);
    expect(run.response?.enforcement).toEqual([
      {
        field: "sandbox",
        value: "read_only",
        enforced: false,
        mechanisms: [],
        detail: expect.stringContaining("best effort accepted") as string,
        bestEffort: true,
      },
      expect.objectContaining({ field: "approvals.permission", value: "ask", enforced: true }),
    ]);
  });

  it("read_only with auto_deny: the escalated command is asked, declined by the SDK, and no file lands", async () => {
    h = await codexHarness({ rules: [ESCALATE_RULE] });
    const run = await runDriver(
      h.driver,
      { prompt: "ESCALATE_CMD echo x > denied.txt", policy: { sandbox: "read_only", approvals: { permission: "auto_deny" } } },
      { onApproval: () => ({ outcome: "deny", reason: "auto_deny" }) },
    );
    expect(run.response?.failure).toBeUndefined();
    expect(run.recording.asks).toHaveLength(1);
    expect(existsSync(join(h.env.workDir, "denied.txt"))).toBe(false);
    expect(run.response?.enforcement?.[0]).toMatchObject({ field: "sandbox", value: "read_only", enforced: true });
  });

  it("read_only with auto_approve: codex asks nothing and rejects the escalated command, no file lands", async () => {
    h = await codexHarness({ rules: [ESCALATE_RULE] });
    const run = await runDriver(h.driver, {
      prompt: "ESCALATE_CMD echo x > confined.txt",
      policy: { sandbox: "read_only", approvals: { permission: "auto_approve" } },
    });
    expect(run.response?.failure).toBeUndefined();
    expect(run.recording.asks).toHaveLength(0);
    expect(existsSync(join(h.env.workDir, "confined.txt"))).toBe(false);
  });

  it("workspace_write with auto_approve: an escalated command writing next to the workspace does not land (nor inside: codex rejects the escalation)", async () => {
    h = await codexHarness({ rules: [ESCALATE_RULE], outsideTmp: true });
    const run = await runDriver(h.driver, {
      prompt: "ESCALATE_CMD echo in > in.txt; echo out > ../outside.txt",
      policy: { sandbox: "workspace_write", approvals: { permission: "auto_approve" } },
    });
    expect(run.response?.failure).toBeUndefined();
    expect(run.recording.asks).toHaveLength(0);
    expect(existsSync(join(h.env.root, "outside.txt"))).toBe(false);
    expect(existsSync(join(h.env.workDir, "in.txt"))).toBe(false);
  });

  it("file changes under auto_approve: no patch lands under read_only, none next to the workspace under workspace_write", async () => {
    h = await codexHarness({ outsideTmp: true });
    const readOnly = await runDriver(h.driver, {
      prompt: "PATCH_FILE patched.txt",
      policy: { sandbox: "read_only", approvals: { permission: "auto_approve" } },
    });
    const outside = await runDriver(h.driver, {
      prompt: "PATCH_FILE ../patched-outside.txt",
      policy: { sandbox: "workspace_write", approvals: { permission: "auto_approve" } },
    });
    expect([readOnly.response?.failure, outside.response?.failure]).toEqual([undefined, undefined]);
    expect([readOnly.recording.asks.length, outside.recording.asks.length]).toEqual([0, 0]);
    expect(existsSync(join(h.env.workDir, "patched.txt"))).toBe(false);
    expect(existsSync(join(h.env.root, "patched-outside.txt"))).toBe(false);
  });

  it("ask with sandbox unrestricted: codex asks before the command; approved it runs, denied it does not", async () => {
    h = await codexHarness();
    const policy: RunPolicy = { sandbox: "unrestricted", approvals: { permission: "ask" } };
    const approved = await runDriver(h.driver, { prompt: "SHELL_CMD echo yes > yes.txt", policy });
    const denied = await runDriver(
      h.driver,
      { prompt: "SHELL_CMD echo no > no.txt", policy },
      { onApproval: () => ({ outcome: "deny", reason: "no" }) },
    );
    expect(approved.recording.asks.map((a) => a.toolName)).toEqual(["shell"]);
    expect(denied.recording.asks.map((a) => a.toolName)).toEqual(["shell"]);
    expect(existsSync(join(h.env.workDir, "yes.txt"))).toBe(true);
    expect(existsSync(join(h.env.workDir, "no.txt"))).toBe(false);
    expect(approved.response?.enforcement?.[0]).toMatchObject({ field: "sandbox", value: "unrestricted", enforced: true });
  });

  it("the README example: ask with sandbox unrestricted, the handler approves by the command it reads", async () => {
    h = await codexHarness();
    const agent = new Agent(h.driver, {
      policy: { sandbox: "unrestricted", approvals: { permission: "ask" } },
      onApproval: (request) => (String(request.details?.command).includes("npm test") ? request.approve() : request.deny("not now")),
    });
    const denied = await agent.run("SHELL_CMD echo other > other.txt");
    const approved = await agent.run("SHELL_CMD echo npm test > npm-test.txt");
    await agent.close();
    expect([denied.status, approved.status]).toEqual(["completed", "completed"]);
    expect(existsSync(join(h.env.workDir, "other.txt"))).toBe(false);
    expect(existsSync(join(h.env.workDir, "npm-test.txt"))).toBe(true);
  });
});

/** Puts `approval_policy = "<value>"` at the top of the harness's codex config (codex's own policy). */
async function setCodexApprovalPolicy(harness: CodexHarness, value: string): Promise<void> {
  const config = await readFile(harness.env.configPath, "utf8");
  await writeFile(harness.env.configPath, `approval_policy = "${value}"\n${config}`);
}

describe("codex: a confining sandbox with permission unset or inherit (real binary)", () => {
  it("read_only with permission unset: codex runs with approval policy never, the escalated command is rejected unasked, no file lands", async () => {
    h = await codexHarness({ rules: [ESCALATE_RULE] });
    const run = await runDriver(h.driver, { prompt: "ESCALATE_CMD echo x > unset.txt", policy: { sandbox: "read_only" } });
    expect(run.response?.failure).toBeUndefined();
    expect(run.recording.asks).toHaveLength(0);
    expect(h.server.responses().at(-1)?.view.lastToolOutput?.output).toContain("approval policy is Never");
    expect(existsSync(join(h.env.workDir, "unset.txt"))).toBe(false);
    expect(run.response?.enforcement).toEqual([
      { field: "sandbox", value: "read_only", enforced: true, mechanisms: ["cli_config"], detail: "thread/start sandbox read-only" },
    ]);
    // Through the SDK (its broker asks the host by default) the host is never asked either.
    let asked = 0;
    const agent = new Agent(h.driver, { policy: { sandbox: "read_only" }, onApproval: (request) => (asked++, request.approve()) });
    const result = await agent.run("ESCALATE_CMD echo x > unset-sdk.txt");
    await agent.close();
    expect([result.status, asked]).toEqual(["completed", 0]);
    expect(existsSync(join(h.env.workDir, "unset-sdk.txt"))).toBe(false);
  });

  it.each(["read_only", "workspace_write"] as const)(
    "sandbox %s with permission inherit under codex's default approval policy is refused after thread/start: no turn, no model request, no file",
    async (sandbox) => {
      h = await codexHarness({ rules: [ESCALATE_RULE] });
      const policy: RunPolicy = { sandbox, approvals: { permission: "inherit" } };
      const run = await runDriver(h.driver, { prompt: "ESCALATE_CMD echo x > inherit.txt", policy });
      expect(isError(run.error, ErrPolicyCapabilityUnsupported)).toBe(true);
      expect(run.error).toMatchObject({ driver: "codex", dimension: "sandbox", value: sandbox });
      expect(String((run.error as Error).message)).toMatch(/permission "inherit": codex's own approval policy is "(untrusted|on-request)"/);
      expect(run.recording.events.filter((e) => e.event.type !== "process" && e.event.type !== "notice")).toEqual([]);
      expect(h.server.responses()).toHaveLength(0);
      // codex was started (thread/start answered) and has been ended, with nothing kept for later.
      expect(run.recording.pids()).toHaveLength(1);
      expect(alive(run.recording.pids()[0]!)).toBe(false);
      expect([h.driver.parkedProcesses, h.driver.prewarmedProcesses]).toEqual([0, 0]);
      await expectRefusedThroughSdk(h, policy, "inherit.txt");
    },
  );

  it("a resumed thread's turn with inherit under read_only: codex's own policy for the folder decides, as on a new thread, not what the thread's earlier turn ran under", async () => {
    h = await codexHarness({ rules: [ESCALATE_RULE] });
    const inherit: RunPolicy = { sandbox: "read_only", approvals: { permission: "inherit" } };
    const resumed = async (policy: RunPolicy) => {
      const first = await runDriver(h!.driver, { prompt: "first turn", policy });
      const requests = h!.server.responses().length;
      const run = await runDriver(h!.driver, {
        prompt: "ESCALATE_CMD echo x > resumed.txt",
        session: { resumeId: first.response!.checkpoint!.resumeId },
        policy: inherit,
      });
      return { run, modelCalled: h!.server.responses().length > requests };
    };
    // Opened under codex's own policy (on-request), or under never (permission unset with read_only):
    // resumed under inherit, codex's own policy for the folder (on-request) is checked and refused
    // after thread/resume, before the model is called.
    for (const policy of [{ approvals: { permission: "inherit" } }, { sandbox: "read_only" }] satisfies RunPolicy[]) {
      const { run, modelCalled } = await resumed(policy);
      expect(isError(run.error, ErrPolicyCapabilityUnsupported)).toBe(true);
      expect((run.error as Error).message).toContain('codex\'s own approval policy is "on-request"');
      expect(modelCalled).toBe(false);
      expect(alive(run.recording.pids()[0]!)).toBe(false);
    }
    // With approval_policy = "never" in codex's config (a top-level key goes before the first table),
    // the resumed turn goes on, and the escalated command is rejected unasked.
    await writeFile(h.env.configPath, `approval_policy = "never"\n${await readFile(h.env.configPath, "utf8")}`);
    const { run: kept } = await resumed({ approvals: { permission: "ask" } });
    expect(kept.response?.failure).toBeUndefined();
    expect(kept.recording.asks).toHaveLength(0);
    expect(h.server.responses().at(-1)?.view.lastToolOutput?.output).toContain("approval policy is Never");
    expect(existsSync(join(h.env.workDir, "resumed.txt"))).toBe(false);
  });

  it("inherit under read_only with bestEffortPolicy: the run goes on, the approved escalated command writes, the sandbox is reported not enforced", async () => {
    h = await codexHarness({ rules: [ESCALATE_RULE], config: { bestEffortPolicy: true } });
    const run = await runDriver(h.driver, {
      prompt: "ESCALATE_CMD echo x > escaped.txt",
      policy: { sandbox: "read_only", approvals: { permission: "inherit" } },
    });
    expect(run.response?.failure).toBeUndefined();
    expect(run.recording.asks).toHaveLength(1);
    expect(existsSync(join(h.env.workDir, "escaped.txt"))).toBe(true);
    expect(run.response?.enforcement?.[0]).toMatchObject({ field: "sandbox", value: "read_only", enforced: false, mechanisms: [] });
    expect(run.response?.enforcement?.[0]?.detail).toMatch(
      /best effort accepted\): codex's own approval policy is "(untrusted|on-request)"/,
    );
  });

  it('inherit under read_only with approval_policy = "never" in codex\'s config: the run goes on, the escalated command is rejected, no file lands', async () => {
    h = await codexHarness({ rules: [ESCALATE_RULE] });
    await setCodexApprovalPolicy(h, "never");
    const run = await runDriver(h.driver, {
      prompt: "ESCALATE_CMD echo x > confined.txt",
      policy: { sandbox: "read_only", approvals: { permission: "inherit" } },
    });
    expect(run.response?.failure).toBeUndefined();
    expect(run.recording.asks).toHaveLength(0);
    expect(existsSync(join(h.env.workDir, "confined.txt"))).toBe(false);
    expect(run.response?.enforcement?.[0]).toMatchObject({ field: "sandbox", value: "read_only", enforced: true });
  });

  it.each([
    ["unset", { sandbox: "read_only" }] as const,
    ["inherit", { sandbox: "read_only", approvals: { permission: "inherit" } }] as const,
  ])(
    'exec transport, read_only with permission %s and approval_policy = "on-request" in codex\'s config: codex exec asks nothing and rejects the escalated command, no file lands',
    async (_permission, policy: RunPolicy) => {
      h = await codexHarness({ rules: [ESCALATE_RULE], config: { transport: "exec" } });
      await setCodexApprovalPolicy(h, "on-request");
      const run = await runDriver(h.driver, { prompt: "ESCALATE_CMD echo x > exec.txt", policy });
      expect(run.response?.failure).toBeUndefined();
      expect(run.recording.asks).toHaveLength(0);
      expect(h.server.responses().at(-1)?.view.lastToolOutput?.output).toContain("approval policy is Never");
      expect(existsSync(join(h.env.workDir, "exec.txt"))).toBe(false);
      expect(run.response?.enforcement?.[0]).toMatchObject({ field: "sandbox", value: "read_only", enforced: true });
    },
  );
});
