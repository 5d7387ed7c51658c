import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { whenToolResult, whenUserSays } from "@adaptor/testkit";
import {
  ErrPolicyCapabilityUnsupported,
  PolicyCapabilityUnsupportedError,
  RunError,
  findError,
  isError,
  type AgentEvent,
  type PolicyEnforcement,
} from "adaptor";
import { alive, harness, spawnedPid, type Harness } from "./support.js";

// Issue "Approvals and run policy" §4–5 on the real claude binary: every policy value the driver
// claims is proved here, and every refusal happens before a process starts.

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

async function collect(stream: AsyncIterable<AgentEvent>): Promise<AgentEvent[]> {
  const events: AgentEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

const askDatabase = {
  when: whenUserSays("pick a database"),
  reply: {
    toolUse: {
      name: "AskUserQuestion",
      input: {
        questions: [
          {
            question: "Which database should we use?",
            header: "Database",
            multiSelect: false,
            options: [
              { label: "PostgreSQL", description: "multi-host" },
              { label: "SQLite", description: "embedded" },
            ],
          },
        ],
      },
    },
  },
};
const echoToolResult = (tool: string) => ({
  when: whenToolResult(tool),
  reply: (view: { lastToolResult?: { content: string; isError: boolean } }) => ({
    text: `${tool} said (${view.lastToolResult?.isError ? "error" : "ok"}): ${view.lastToolResult?.content ?? ""}`,
  }),
});

describe("claude approvals and policy on the real binary", () => {
  it("AskUserQuestion becomes a question with choices, and the chosen answer reaches the model", async () => {
    h = await harness([askDatabase, echoToolResult("AskUserQuestion")]);
    const stream = h.agent.stream("please pick a database", { policy: { approvals: { question: "ask" } } });
    const asked: { kind: string; title: string; choices: string[] }[] = [];
    for await (const event of stream) {
      if (event.type !== "approval-request") continue;
      asked.push({ kind: event.request.kind, title: event.request.title, choices: (event.request.choices ?? []).map((c) => c.key) });
      event.request.answer("SQLite");
    }
    await stream.result();
    expect(asked).toEqual([{ kind: "question", title: "Which database should we use?", choices: ["PostgreSQL", "SQLite"] }]);
    const toolResult = h.server.requests.at(-1)?.view.lastToolResult;
    expect(toolResult?.toolName).toBe("AskUserQuestion");
    expect(toolResult?.content).toContain("SQLite");
  });

  it.each([
    ["unset", {}],
    ["set to auto_deny", { question: "auto_deny" as const }],
  ])(
    "question mode %s with onReject abort: AskUserQuestion is declined, the model reads it and the run completes (onReject is for the host's denials)",
    async (_name, modes) => {
      h = await harness([askDatabase, echoToolResult("AskUserQuestion")]);
      const asked: string[] = [];
      const stream = h.agent.stream("please pick a database", {
        policy: { approvals: { ...modes, onReject: "abort" } },
        onApproval: (request) => {
          asked.push(request.kind);
          request.deny("asked");
        },
      });
      const events = await collect(stream);
      const result = await stream.result();
      expect(result.status).toBe("completed");
      expect(result.text).toContain("AskUserQuestion said (error)");
      expect(asked).toEqual([]);
      const resolved = events.flatMap((e) => (e.type === "notice" && e.kind === "approval.resolved" ? [e.data] : []));
      expect(resolved).toEqual([expect.objectContaining({ kind: "question", outcome: "denied", auto: true })]);
    },
  );

  it("ExitPlanMode becomes a plan review: approved, then rejected with the reason reaching the model", async () => {
    // ExitPlanMode only asks in plan mode, so the scripted model enters it first.
    h = await harness([
      { when: whenUserSays("make a plan"), reply: { toolUse: { name: "EnterPlanMode", input: {} } } },
      { when: whenToolResult("EnterPlanMode"), reply: { toolUse: { name: "ExitPlanMode", input: { plan: "1. add tests\n2. fix bug" } } } },
      echoToolResult("ExitPlanMode"),
    ]);
    const kinds: string[] = [];
    const approved = await h.agent.run("make a plan", {
      onApproval: (r) => {
        kinds.push(r.kind);
        expect(r.details).toMatchObject({ plan: "1. add tests\n2. fix bug" });
        r.approve();
      },
    });
    expect(kinds).toEqual(["plan_review"]);
    expect(approved.text).toContain("ExitPlanMode said (ok)");
    const rejected = await h.agent.run("make a plan again", { onApproval: (r) => r.deny("the plan needs a rollback step") });
    expect(rejected.text).toContain("ExitPlanMode said (error)");
    expect(h.server.requests.at(-1)?.view.lastToolResult?.content).toContain("the plan needs a rollback step");
  });

  it("auto_approve writes without asking; auto_deny refuses without asking", async () => {
    h = await harness();
    const approvedFile = join(h.env.workDir, "auto-yes.txt");
    const stream = h.agent.stream(`WRITE_FILE ${approvedFile}`, { policy: { approvals: { permission: "auto_approve" } } });
    const events = await collect(stream);
    await stream.result();
    expect(existsSync(approvedFile)).toBe(true);
    expect(events.some((e) => e.type === "approval-request")).toBe(false);
    const deniedFile = join(h.env.workDir, "auto-no.txt");
    await h.agent.run(`WRITE_FILE ${deniedFile}`, { policy: { approvals: { permission: "auto_deny" } } });
    expect(existsSync(deniedFile)).toBe(false);
    expect(h.server.requests.at(-1)?.view.lastToolResult?.isError).toBe(true);
  });

  it("read_only sandbox: a write the host would approve never happens", async () => {
    h = await harness([], {}, { onApproval: (r) => r.approve() });
    const file = join(h.env.workDir, "must-not-exist.txt");
    const result = await h.agent.run(`WRITE_FILE ${file}`, { policy: { sandbox: "read_only" } });
    expect(existsSync(file)).toBe(false);
    expect(result.enforcement).toEqual([
      expect.objectContaining({ field: "sandbox", value: "read_only", enforced: true, mechanisms: ["cli_flag", "cli_config"] }),
    ]);
    expect(h.server.requests.at(-1)?.view.lastToolResult?.isError).toBe(true);
  });

  it("webSearch deny: a web fetch the host would approve is refused", async () => {
    h = await harness(
      [
        {
          when: whenUserSays("fetch the page"),
          reply: { toolUse: { name: "WebFetch", input: { url: "http://127.0.0.1:9/x", prompt: "summarise" } } },
        },
        echoToolResult("WebFetch"),
      ],
      {},
      { onApproval: (r) => r.approve() },
    );
    const stream = h.agent.stream("fetch the page", { policy: { webSearch: "deny" } });
    const events = await collect(stream);
    await stream.result();
    expect(events.some((e) => e.type === "approval-request")).toBe(false);
    const toolResult = h.server.requests.at(-1)?.view.lastToolResult;
    expect(toolResult?.isError).toBe(true);
  });

  it("unrestricted: Bash runs without an approval request", async () => {
    h = await harness();
    const stream = h.agent.stream("SHELL_CMD echo unrestricted-ok", { policy: { sandbox: "unrestricted" } });
    const events = await collect(stream);
    const result = await stream.result();
    expect(events.some((e) => e.type === "approval-request")).toBe(false);
    expect(result.text).toContain("unrestricted-ok");
  });

  it("unrestricted with ask or auto_deny: the host decides every Bash and Write call, nothing runs unasked; auto_approve runs them", async () => {
    h = await harness();
    const outcome: string[] = [];
    const reports: (PolicyEnforcement | undefined)[] = [];
    for (const permission of ["ask", "auto_deny", "auto_approve"] as const) {
      for (const tool of ["Bash", "Write"] as const) {
        const file = join(h.env.workDir, `${permission}-${tool}.txt`);
        const asked: string[] = [];
        const result = await h.agent.run(tool === "Bash" ? `SHELL_CMD echo x > ${file}` : `WRITE_FILE ${file}`, {
          policy: { sandbox: "unrestricted", approvals: { permission } },
          onApproval: (r) => {
            asked.push(r.kind);
            r.deny("the host says no");
          },
        });
        outcome.push(`${permission} ${tool}: asked=${asked.join(",")} written=${existsSync(file)}`);
        reports.push(result.enforcement.find((e) => e.field === "approvals.permission"));
      }
    }
    expect(outcome).toEqual([
      "ask Bash: asked=permission written=false",
      "ask Write: asked=permission written=false",
      "auto_deny Bash: asked= written=false",
      "auto_deny Write: asked= written=false",
      "auto_approve Bash: asked= written=true",
      "auto_approve Write: asked= written=true",
    ]);
    // The report says how: the host was asked (default mode), or nothing was (bypassPermissions).
    expect(reports.map((r) => [r?.value, r?.enforced, r?.detail.split(" ").slice(0, 2).join(" ")])).toEqual([
      ...Array(2).fill(["ask", true, "--permission-mode default"]),
      ...Array(2).fill(["auto_deny", true, "--permission-mode default"]),
      ...Array(2).fill(["auto_approve", true, "--permission-mode bypassPermissions:"]),
    ]);
  }, 180_000);

  it("active-execution budget: paused during a human wait longer than the budget, exhausted by a slow model", async () => {
    h = await harness([{ when: whenUserSays("slow model"), reply: { text: "late", delayMs: 10_000 } }]);
    const file = join(h.env.workDir, "budget.txt");
    // The active time (spawn included) stays well under 30 s even on a loaded machine, the human
    // waits 32 s: only a budget that pauses while the human is asked survives it with 30 s.
    const stream = h.agent.stream(`WRITE_FILE ${file}`, { policy: { activeExecutionTimeoutMs: 30_000, approvals: { timeoutMs: 90_000 } } });
    for await (const event of stream) {
      if (event.type === "approval-request") setTimeout(() => event.request.approve(), 32_000);
    }
    await stream.result();
    expect(existsSync(file)).toBe(true);

    const slow = h.agent.stream("slow model please", { policy: { activeExecutionTimeoutMs: 800 } });
    const events = await collect(slow);
    const err = await slow.result().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RunError);
    expect((err as RunError).reason).toBe("active_execution_timeout");
    expect(alive(spawnedPid(events)!)).toBe(false);
  }, 180_000);

  it("approval timeout → abort: RunError approval_timeout and the CLI process is stopped", async () => {
    h = await harness();
    const file = join(h.env.workDir, "late.txt");
    const stream = h.agent.stream(`WRITE_FILE ${file}`, { policy: { approvals: { timeoutMs: 300 } } });
    const events = await collect(stream);
    const err = await stream.result().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RunError);
    expect((err as RunError).reason).toBe("approval_timeout");
    expect(existsSync(file)).toBe(false);
    expect(alive(spawnedPid(events)!)).toBe(false);
  });

  for (const policy of [{ browser: "allow" }, { browser: "deny" }, { sandbox: "workspace_write" }, { webSearch: "allow" }] as const) {
    it(`unsupported ${JSON.stringify(policy)} is refused before any process starts`, async () => {
      h = await harness();
      const stream = h.agent.stream("hello", { policy });
      const events = await collect(stream);
      const err = await stream.result().catch((e: unknown) => e);
      expect(isError(err, ErrPolicyCapabilityUnsupported)).toBe(true);
      const [dimension, value] = Object.entries(policy)[0]!;
      expect(findError(err, PolicyCapabilityUnsupportedError)).toMatchObject({ driver: "claude", dimension, value });
      expect(events.some((e) => e.type === "process")).toBe(false);
      expect(h.server.requests).toHaveLength(0);
    });
  }
});
