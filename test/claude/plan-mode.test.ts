import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { RequestView, ScriptRule } from "@adaptor/testkit";
import { claude } from "@adaptor/claude";
import { MemoryThreadStore } from "@adaptor/threadstore";
import { Agent, type AgentEvent, type ApprovalRequest, type Policy } from "adaptor";
import { harness, type Harness } from "./support.js";

// Real claude binary: `planMode` starts the turn with `--permission-mode plan`. The scripted model
// first tries a write (plan mode refuses it), then calls ExitPlanMode, whose ask arrives as a
// `plan_review`; after an approve it writes a file and runs a command, as the run's policy lets it.

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/** How many tool results the request's messages hold (the model's step in a multi-call turn). */
function toolResults(view: RequestView): number {
  const messages = (view.raw as { messages?: unknown }).messages;
  if (!Array.isArray(messages)) return 0;
  return messages
    .flatMap((message: { content?: unknown }) => (Array.isArray(message.content) ? (message.content as { type?: unknown }[]) : []))
    .filter((block) => block.type === "tool_result").length;
}

/** The text of every tool result the request's messages hold, oldest first. */
function resultTexts(view: RequestView): string[] {
  const messages = (view.raw as { messages?: unknown }).messages;
  if (!Array.isArray(messages)) return [];
  return messages
    .flatMap((message: { content?: unknown }) =>
      Array.isArray(message.content) ? (message.content as { type?: unknown; content?: unknown }[]) : [],
    )
    .filter((block) => block.type === "tool_result")
    .map((block) => JSON.stringify(block.content));
}

type Call = { readonly name: string; readonly input: Record<string, unknown> };

const PLAN = "1. Write plan.txt\n2. Run echo";
let seen: string[] = [];

/** The model: a write, ExitPlanMode with {@link PLAN}, a write, a command, then "finished". */
function planThenWork(marker: string, workDir: () => string): ScriptRule {
  return {
    when: (view) => view.firstUserText.includes(marker),
    reply: (view) => {
      seen = resultTexts(view);
      const calls: Call[] = [
        { name: "Write", input: { file_path: join(workDir(), "early.txt"), content: "too early\n" } },
        { name: "ExitPlanMode", input: { plan: PLAN } },
        { name: "Write", input: { file_path: join(workDir(), "plan.txt"), content: "done\n" } },
        { name: "Bash", input: { command: "echo ran > ran.txt", description: "step" } },
      ];
      const call = calls[toolResults(view)];
      return call === undefined ? { text: "finished" } : { toolUse: call };
    },
  };
}

async function runPlan(policy: Policy, decide: (request: ApprovalRequest) => void) {
  const requests: ApprovalRequest[] = [];
  const stream = h!.agent.stream("PLAN_RUN", {
    planMode: true,
    policy,
    onApproval: (request) => {
      requests.push(request);
      decide(request);
    },
  });
  const events: AgentEvent[] = [];
  for await (const event of stream) events.push(event);
  const result = await stream.result();
  return { requests, events, result };
}

/** A later turn (its prompt holds `marker`): a write of `file`, then "finished two". */
function laterTurnWrites(marker: string, file: () => string): ScriptRule {
  return {
    when: (view) => JSON.stringify((view.raw as { messages?: unknown }).messages).includes(marker),
    reply: (view) => {
      const messages = (view.raw as { messages: { role: string; content: unknown }[] }).messages;
      const start = messages.findLastIndex((message) => JSON.stringify(message.content).includes(marker));
      const results = messages
        .slice(start)
        .flatMap((message) => (Array.isArray(message.content) ? (message.content as { type?: unknown }[]) : []))
        .filter((block) => block.type === "tool_result").length;
      return results === 0 ? { toolUse: { name: "Write", input: { file_path: file(), content: "two\n" } } } : { text: "finished two" };
    },
  };
}

const notices = (events: readonly AgentEvent[], kind: string) =>
  events.flatMap((e) => (e.type === "notice" && e.kind === kind ? [e.data ?? {}] : []));

describe("plan mode on claude (real binary)", () => {
  it("a write before the plan is denied unasked; the plan arrives as a plan_review; after the approve the agent works under the policy (asked)", async () => {
    let workDir = "";
    h = await harness([planThenWork("PLAN_RUN", () => workDir)]);
    workDir = h.env.workDir;
    const { requests, events, result } = await runPlan({ approvals: { permission: "ask" } }, (request) => request.approve());
    expect(result.text).toBe("finished");
    expect(requests.map((r) => [r.kind, r.title])).toEqual([
      ["plan_review", "Review plan"],
      ["permission", `Write: ${join(workDir, "plan.txt")}`],
      ["permission", "Bash: echo ran > ran.txt"],
    ]);
    expect(requests[0]!.details).toEqual({ plan: PLAN });
    expect(notices(events, "approval.plan-mode")).toEqual([{ toolName: "Write", toolCallId: expect.any(String) }]);
    expect(seen[0]).toContain("Denied in plan mode");
    expect(existsSync(join(workDir, "early.txt"))).toBe(false);
    expect(readFileSync(join(workDir, "plan.txt"), "utf8")).toBe("done\n");
    expect(readFileSync(join(workDir, "ran.txt"), "utf8")).toBe("ran\n");
  });

  it("plan mode with allow rules (allowedTools, or --allowedTools in extraArgs) is refused before launch: the CLI would run what they allow before any plan", async () => {
    h = await harness([planThenWork("PLAN_RUN", () => "")], { extraArgs: ["--allowedTools", "Bash(touch *)"] });
    const viaRun = await h.agent.run("PLAN_RUN", { planMode: true, allowedTools: ["Bash(touch *)"] }).catch((error: unknown) => error);
    expect(viaRun).toMatchObject({ name: "InvalidOptionError", field: "planMode" });
    expect((viaRun as Error).message).toContain("allowedTools");
    const viaConfig = await h.agent.run("PLAN_RUN", { planMode: true }).catch((error: unknown) => error);
    expect(viaConfig).toMatchObject({ name: "InvalidOptionError", field: "planMode" });
    expect((viaConfig as Error).message).toContain("--allowedTools in extraArgs");
    expect(h.server.requests).toHaveLength(0);
  });

  it("a denied plan keeps the turn in plan mode: the later write and command are denied unasked and the turn ends", async () => {
    let workDir = "";
    h = await harness([planThenWork("PLAN_RUN", () => workDir)]);
    workDir = h.env.workDir;
    const { requests, events, result } = await runPlan({ approvals: { permission: "ask" } }, (request) => request.deny("not this plan"));
    expect(result.text).toBe("finished");
    expect(requests.map((r) => r.kind)).toEqual(["plan_review"]);
    expect(seen[1]).toContain("not this plan");
    expect(notices(events, "approval.plan-mode").map((d) => d.toolName)).toEqual(["Write", "Write", "Bash"]);
    for (const file of ["early.txt", "plan.txt", "ran.txt"]) expect(existsSync(join(workDir, file))).toBe(false);
  });

  it("under sandbox unrestricted an approved plan returns to that policy's mode: the write and the command run unasked", async () => {
    let workDir = "";
    h = await harness([planThenWork("PLAN_RUN", () => workDir)]);
    workDir = h.env.workDir;
    const { requests, result } = await runPlan({ sandbox: "unrestricted" }, (request) => request.approve());
    expect(result.text).toBe("finished");
    expect(requests.map((r) => r.kind)).toEqual(["plan_review"]);
    expect(existsSync(join(workDir, "early.txt"))).toBe(false);
    expect(readFileSync(join(workDir, "plan.txt"), "utf8")).toBe("done\n");
    expect(readFileSync(join(workDir, "ran.txt"), "utf8")).toBe("ran\n");
  });

  it("under sandbox read_only a read outside the folder is denied unasked while planning, and the approve does not lift the sandbox", async () => {
    let workDir = "";
    const secret = join(mkdtempSync(join(tmpdir(), "plan-outside-")), "secret.txt");
    writeFileSync(secret, "SECRET-CONTENT\n");
    const calls = (): Call[] => [
      { name: "Read", input: { file_path: secret } },
      { name: "ExitPlanMode", input: { plan: PLAN } },
      { name: "Write", input: { file_path: join(workDir, "plan.txt"), content: "done\n" } },
      { name: "Bash", input: { command: "echo ran > ran.txt", description: "step" } },
    ];
    h = await harness([
      {
        when: (view) => view.firstUserText.includes("PLAN_RUN"),
        reply: (view) => {
          seen = resultTexts(view);
          const call = calls()[toolResults(view)];
          return call === undefined ? { text: "finished" } : { toolUse: call };
        },
      },
    ]);
    workDir = h.env.workDir;
    try {
      const { requests, events, result } = await runPlan({ sandbox: "read_only" }, (request) => request.approve());
      expect(result.text).toBe("finished");
      expect(requests.map((r) => r.kind)).toEqual(["plan_review"]);
      expect(notices(events, "approval.plan-mode").map((d) => d.toolName)).toEqual(["Read"]);
      expect(seen.join("\n")).not.toContain("SECRET-CONTENT");
      for (const file of ["plan.txt", "ran.txt"]) expect(existsSync(join(workDir, file))).toBe(false);
      expect(seen.slice(2).join("\n")).not.toContain("successfully");
    } finally {
      rmSync(dirname(secret), { recursive: true, force: true });
    }
  });

  it("a thread's plan-mode turn leaves its process unparked: the next plan-mode turn starts afresh in plan mode, its write denied unasked", async () => {
    let workDir = "";
    h = await harness([laterTurnWrites("SECOND_TURN", () => join(workDir, "second.txt")), planThenWork("PLAN_RUN", () => workDir)]);
    workDir = h.env.workDir;
    const agent = new Agent(claude({ cwd: workDir, env: h.env.env, inheritEnv: false, model: "claude-sonnet-4-5" }), {
      threadStore: new MemoryThreadStore(),
    });
    try {
      const kinds: string[][] = [[], []];
      const spawned: number[] = [0, 0];
      const denied: unknown[][] = [[], []];
      for (const [turn, prompt, planMode] of [
        [0, "PLAN_RUN", true],
        [1, "SECOND_TURN", true],
      ] as const) {
        const stream = agent.thread("plan").stream(prompt, {
          planMode,
          policy: { approvals: { permission: "ask" } },
          onApproval: (request) => {
            kinds[turn]!.push(request.kind);
            request.approve();
          },
        });
        for await (const event of stream) {
          if (event.type === "process" && event.kind === "spawn") spawned[turn]!++;
          if (event.type === "notice" && event.kind === "approval.plan-mode") denied[turn]!.push(event.data?.toolName);
        }
        expect((await stream.result()).text).toMatch(/^finished/);
      }
      expect(kinds).toEqual([["plan_review", "permission", "permission"], []]);
      expect(denied).toEqual([["Write"], ["Write"]]);
      expect(spawned).toEqual([1, 1]);
      expect(existsSync(join(workDir, "second.txt"))).toBe(false);
    } finally {
      await agent.close();
    }
  });
});
