import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { RequestView, ScriptRule } from "@adaptor/testkit";
import { acceptEdits, InvalidPolicyError, type AgentEvent, type ApprovalRequest, type Policy } from "adaptor";
import { callThenReport, harness, type Harness } from "./support.js";

// Real claude binary: rules given before the run (`policy.approvals.rules`) answer Claude Code's
// asks in the SDK, as remembered rules do; nothing is written to its settings. "Accept edits": a
// write inside the working folder runs unasked; one outside (or through a link that leads out)
// and a command are still asked.

let h: Harness | undefined;
let outside: string | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
  if (outside) rmSync(outside, { recursive: true, force: true });
  outside = undefined;
});

/** How many tool results the request's messages hold (the model's step in a multi-call turn). */
function toolResults(view: RequestView): number {
  const messages = (view.raw as { messages?: unknown }).messages;
  if (!Array.isArray(messages)) return 0;
  return messages
    .flatMap((message: { content?: unknown }) => (Array.isArray(message.content) ? (message.content as { type?: unknown }[]) : []))
    .filter((block) => block.type === "tool_result").length;
}

type Call = { readonly name: string; readonly input: Record<string, unknown> };

/** A turn in which the model makes the `calls` one after the other, then says "finished". */
function callsInOrder(marker: string, calls: () => readonly Call[]): ScriptRule {
  return {
    when: (view) => view.firstUserText.includes(marker),
    reply: (view) => {
      const call = calls()[toolResults(view)];
      return call === undefined ? { text: "finished" } : { toolUse: call };
    },
  };
}

const notices = (events: readonly AgentEvent[], kind: string) =>
  events.flatMap((e) => (e.type === "notice" && e.kind === kind ? [e.data ?? {}] : []));

describe("policy rules on claude (real binary)", () => {
  it("acceptEdits(cwd): a write inside is not asked and runs; one outside, one through a link out, and a command are asked", async () => {
    let calls: Call[] = [];
    h = await harness([callsInOrder("ACCEPT_EDITS", () => calls)]);
    const workDir = h.env.workDir;
    outside = mkdtempSync(join(tmpdir(), "claude-outside-"));
    mkdirSync(join(workDir, "src"));
    symlinkSync(outside, join(workDir, "src", "away"));
    const write = (file: string): Call => ({ name: "Write", input: { file_path: file, content: "x\n" } });
    calls = [
      write(join(workDir, "src", "inside.txt")),
      write(join(outside, "out.txt")),
      write(join(workDir, "src", "away", "linked.txt")),
      { name: "Bash", input: { command: "echo ran > cmd.txt", description: "step" } },
    ];
    const requests: ApprovalRequest[] = [];
    const stream = h.agent.stream("ACCEPT_EDITS", {
      policy: { approvals: { permission: "ask", rules: acceptEdits(workDir) } },
      onApproval: (request) => {
        requests.push(request);
        request.deny("asked");
      },
    });
    const events: AgentEvent[] = [];
    for await (const event of stream) events.push(event);
    const result = await stream.result();
    expect(result.text).toBe("finished");
    expect(requests.map((r) => r.title)).toEqual([
      `Write: ${join(outside, "out.txt")}`,
      `Write: ${join(workDir, "src", "away", "linked.txt")}`,
      "Bash: echo ran > cmd.txt",
    ]);
    expect(readFileSync(join(workDir, "src", "inside.txt"), "utf8")).toBe("x\n");
    expect(existsSync(join(outside, "out.txt")) || existsSync(join(outside, "linked.txt"))).toBe(false);
    expect(existsSync(join(workDir, "cmd.txt"))).toBe(false);
    expect(notices(events, "approval.resolved").map((d) => [d.outcome, d.rule])).toEqual([
      ["approved", { toolName: "Write", pathPrefix: workDir }],
      ["denied", undefined],
      ["denied", undefined],
      ["denied", undefined],
    ]);
  });
  it("under ask a deny rule stops cat secret.txt, which Claude Code would run unasked (its default mode, a settings allow rule)", async () => {
    h = await harness(callThenReport("READ_SECRET", "Bash", { command: "cat secret.txt", description: "read" }));
    writeFileSync(join(h.env.workDir, "secret.txt"), "TOPSECRET\n");
    writeFileSync(join(h.env.configDir, "settings.json"), JSON.stringify({ permissions: { allow: ["Bash(cat:*)"] } }));
    const requests: ApprovalRequest[] = [];
    const stream = h.agent.stream("READ_SECRET", {
      policy: {
        approvals: { permission: "ask", rules: [{ toolName: "Bash", commandPrefix: "cat", outcome: "deny", reason: "no reading" }] },
      },
      onApproval: (request) => {
        requests.push(request);
        request.approve();
      },
    });
    const events: AgentEvent[] = [];
    for await (const event of stream) events.push(event);
    const result = await stream.result();
    expect(requests).toEqual([]);
    expect(notices(events, "approval.resolved").map((d) => [d.outcome, d.rule])).toEqual([
      ["denied", { toolName: "Bash", commandPrefix: "cat" }],
    ]);
    expect(result.text).toContain("Bash error");
    expect(result.text).not.toContain("TOPSECRET");
  });

  it.each([
    ["permission unset, no sandbox (Claude Code's default mode)", {}],
    ["permission unset, sandbox unrestricted (bypassPermissions)", { sandbox: "unrestricted" }],
    ["permission inherit", { approvals: { permission: "inherit" } }],
  ] as const)(
    "%s: Claude Code runs cat secret.txt unasked, so a deny rule naming it is refused before launch",
    async (_name, policy: Policy) => {
      h = await harness(callThenReport("READ_SECRET", "Bash", { command: "cat secret.txt", description: "read" }));
      writeFileSync(join(h.env.workDir, "secret.txt"), "TOPSECRET\n");
      const requests: ApprovalRequest[] = [];
      const onApproval = (request: ApprovalRequest): void => {
        requests.push(request);
        request.deny("asked");
      };
      // Without the rule: nothing is asked and the file is read.
      const unasked = await h.agent.run("READ_SECRET", { policy, onApproval });
      expect(requests).toEqual([]);
      expect(unasked.text).toContain("TOPSECRET");
      const served = h.server.requests.length;
      const refused = await h.agent
        .run("READ_SECRET", {
          policy: { ...policy, approvals: { ...policy.approvals, rules: [{ toolName: "Bash", commandPrefix: "cat", outcome: "deny" }] } },
          onApproval,
        })
        .catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(InvalidPolicyError);
      expect(refused).toMatchObject({ field: "approvals.rules[0].outcome", value: "deny" });
      expect((refused as Error).message).toContain('use permission "ask"');
      expect(h.server.requests.length).toBe(served);
    },
  );
  it("under ask a Read that Claude Code would run unasked, inside a folder a deny rule names, is asked and denied by the rule before it runs; the model never gets the file", async () => {
    let calls: Call[] = [];
    h = await harness([callsInOrder("READ_KEY", () => calls)]);
    const workDir = h.env.workDir;
    mkdirSync(join(workDir, "secret"));
    const key = join(workDir, "secret", "key.pem");
    writeFileSync(key, "TOPSECRET\n");
    writeFileSync(join(workDir, "notes.txt"), "PLAINNOTES\n");
    calls = [
      { name: "Read", input: { file_path: key } },
      { name: "Read", input: { file_path: join(workDir, "notes.txt") } },
    ];
    const rule = { toolName: "Read", pathPrefix: join(workDir, "secret") };
    const requests: ApprovalRequest[] = [];
    const stream = h.agent.stream("READ_KEY", {
      policy: { approvals: { permission: "ask", rules: [{ ...rule, outcome: "deny" }] } },
      onApproval: (request) => {
        requests.push(request);
        request.approve();
      },
    });
    const events: AgentEvent[] = [];
    for await (const event of stream) events.push(event);
    const result = await stream.result();
    expect(result.text).toBe("finished");
    // The host is asked about neither: the rule answers the first, the CLI runs the second unasked.
    expect(requests).toEqual([]);
    expect(notices(events, "approval.resolved").map((d) => [d.outcome, d.rule])).toEqual([["denied", rule]]);
    expect(notices(events, "approval.unasked")).toEqual([]);
    // The model's request after the denied Read carries the refusal, never the file.
    const bodies = h.server.requests.map((request) => JSON.stringify(request.view.raw));
    expect(bodies.some((body) => body.includes("TOPSECRET"))).toBe(false);
    expect(bodies.at(-1)).toContain("PLAINNOTES");
    const afterDenied = h.server.requests.find((request) => toolResults(request.view) === 1)?.view.lastToolResult;
    expect(afterDenied?.isError).toBe(true);
  });
  it.each([
    ["an absolute pattern", (secret: string) => `${secret}/*.pem`],
    ["a pattern climbing out of path with ..", () => "../secret/*.pem"],
  ])(
    "under ask a Glob whose %s reaches into a folder a deny rule names (its path elsewhere) is denied before it runs; the model never gets the file's name",
    async (_name, pattern) => {
      let calls: Call[] = [];
      h = await harness([callsInOrder("FIND_KEY", () => calls)]);
      const workDir = h.env.workDir;
      const secret = join(workDir, "secret");
      mkdirSync(secret);
      mkdirSync(join(workDir, "other"));
      writeFileSync(join(secret, "key-TOPSECRET.pem"), "x\n");
      writeFileSync(join(workDir, "other", "plain-NOTES.txt"), "x\n");
      calls = [
        { name: "Glob", input: { pattern: pattern(secret), path: join(workDir, "other") } },
        { name: "Glob", input: { pattern: "*.txt", path: join(workDir, "other") } },
      ];
      const rule = { toolName: "Glob", pathPrefix: secret };
      const requests: ApprovalRequest[] = [];
      // claude 2.1.332 offers Glob only when its tool list names it, as the read_only sandbox's does.
      const stream = h.agent.stream("FIND_KEY", {
        policy: { sandbox: "read_only", approvals: { permission: "ask", rules: [{ ...rule, outcome: "deny" }] } },
        onApproval: (request) => {
          requests.push(request);
          request.approve();
        },
      });
      const events: AgentEvent[] = [];
      for await (const event of stream) events.push(event);
      const result = await stream.result();
      expect(result.text).toBe("finished");
      expect(requests).toEqual([]);
      expect(notices(events, "approval.resolved").map((d) => [d.outcome, d.rule])).toEqual([["denied", rule]]);
      const bodies = h.server.requests.map((request) => JSON.stringify(request.view.raw));
      expect(bodies.some((body) => body.includes("TOPSECRET"))).toBe(false);
      expect(bodies.at(-1)).toContain("plain-NOTES.txt");
    },
  );
  it("under sandbox read_only (dontAsk) with ask, a Read the CLI would run unasked inside a folder a deny rule names is asked and denied by the rule before it runs", async () => {
    let calls: Call[] = [];
    h = await harness([callsInOrder("READ_KEY", () => calls)]);
    const workDir = h.env.workDir;
    mkdirSync(join(workDir, "secret"));
    writeFileSync(join(workDir, "secret", "key.pem"), "TOPSECRET\n");
    writeFileSync(join(workDir, "notes.txt"), "PLAINNOTES\n");
    calls = [
      { name: "Read", input: { file_path: join(workDir, "secret", "key.pem") } },
      { name: "Read", input: { file_path: join(workDir, "notes.txt") } },
    ];
    const rule = { toolName: "Read", pathPrefix: join(workDir, "secret") };
    const stream = h.agent.stream("READ_KEY", {
      policy: { sandbox: "read_only", approvals: { permission: "ask", rules: [{ ...rule, outcome: "deny" }] } },
      onApproval: (request) => request.approve(),
    });
    const events: AgentEvent[] = [];
    for await (const event of stream) events.push(event);
    const result = await stream.result();
    expect(result.text).toBe("finished");
    expect(notices(events, "approval.resolved").map((d) => [d.outcome, d.rule])).toEqual([["denied", rule]]);
    const bodies = h.server.requests.map((request) => JSON.stringify(request.view.raw));
    expect(bodies.some((body) => body.includes("TOPSECRET"))).toBe(false);
    expect(bodies.at(-1)).toContain("PLAINNOTES");
  });
  it("with askForEveryTool the same Read is asked, and the deny rule refuses it before it runs", async () => {
    let file = "";
    h = await harness([callsInOrder("READ_KEY", () => [{ name: "Read", input: { file_path: file } }])], { askForEveryTool: true });
    const workDir = h.env.workDir;
    mkdirSync(join(workDir, "secret"));
    file = join(workDir, "secret", "key.pem");
    writeFileSync(file, "TOPSECRET\n");
    const rule = { toolName: "Read", pathPrefix: join(workDir, "secret") };
    const stream = h.agent.stream("READ_KEY", {
      policy: { approvals: { permission: "ask", rules: [{ ...rule, outcome: "deny" }] } },
      onApproval: (request) => request.approve(),
    });
    const events: AgentEvent[] = [];
    for await (const event of stream) events.push(event);
    const result = await stream.result();
    expect(result.text).toBe("finished");
    expect(notices(events, "approval.resolved").map((d) => [d.outcome, d.rule])).toEqual([["denied", rule]]);
    expect(notices(events, "approval.unasked")).toEqual([]);
    expect(events.flatMap((e) => (e.type === "tool-result" ? [String(e.output)] : [])).join("\n")).not.toContain("TOPSECRET");
  });
});
