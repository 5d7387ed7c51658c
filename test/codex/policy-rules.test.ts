import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { addFilePatch, type ResponsesRequestView, type ResponsesScriptRule } from "@adaptor/testkit";
import { acceptEdits, Agent, InvalidPolicyError, type AgentEvent, type ApprovalRequest } from "adaptor";
import { codexHarness, type CodexHarness } from "./support.js";

// Real codex binary, app-server transport: rules given before the run (`policy.approvals.rules`)
// answer codex's asks in the SDK, as remembered rules do. "Accept edits": a patch inside the
// working folder runs unasked; one outside and a command are still asked.

let h: CodexHarness | undefined;
let outside: string | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
  if (outside) rmSync(outside, { recursive: true, force: true });
  outside = undefined;
});

/** How many tool outputs the request's input holds (the model's step in a multi-call turn). */
function outputs(view: ResponsesRequestView): number {
  const input = (view.raw as { input?: unknown }).input;
  return Array.isArray(input)
    ? input.filter((item: { type?: unknown }) => item.type === "function_call_output" || item.type === "custom_tool_call_output").length
    : 0;
}

type Step = { readonly patch: string } | { readonly command: string };

/** A turn in which the model takes the `steps` one after the other, then says "finished". */
function stepsInOrder(marker: string, steps: () => readonly Step[]): ResponsesScriptRule {
  return {
    name: marker,
    when: (view) => view.firstUserText.includes(marker),
    reply: (view) => {
      const step = steps()[outputs(view)];
      if (step === undefined) return { text: "finished" };
      return "patch" in step
        ? { customToolCall: { name: "apply_patch", input: step.patch } }
        : { functionCall: { name: "exec_command", arguments: { cmd: step.command } } };
    },
  };
}

const notices = (events: readonly AgentEvent[], kind: string) =>
  events.flatMap((e) => (e.type === "notice" && e.kind === kind ? [e.data ?? {}] : []));

describe("policy rules on codex (real binary, app-server)", () => {
  it("acceptEdits(cwd): a patch inside the folder is not asked and is written; one outside and a command are asked", async () => {
    outside = mkdtempSync(join(tmpdir(), "codex-outside-"));
    let steps: Step[] = [];
    h = await codexHarness({ rules: [stepsInOrder("ACCEPT_EDITS", () => steps)] });
    const workDir = h.env.workDir;
    steps = [
      { patch: addFilePatch(join(workDir, "inside.txt")) },
      { patch: addFilePatch(join(outside, "out.txt")) },
      { command: "echo ran > cmd.txt" },
    ];
    const requests: ApprovalRequest[] = [];
    const agent = new Agent(h.driver, {
      onApproval: (request) => {
        requests.push(request);
        request.deny("asked");
      },
    });
    const stream = agent.stream("ACCEPT_EDITS", {
      policy: { approvals: { permission: "ask", rules: acceptEdits(workDir) } },
    });
    const events: AgentEvent[] = [];
    for await (const event of stream) events.push(event);
    const result = await stream.result();
    await agent.close();
    expect(result.text).toBe("finished");
    expect(requests.map((r) => r.toolName)).toEqual(["apply_patch", "shell"]);
    expect(JSON.stringify(requests[0]!.input)).toContain("out.txt");
    expect(readFileSync(join(workDir, "inside.txt"), "utf8")).toContain("hello");
    expect(existsSync(join(outside, "out.txt"))).toBe(false);
    expect(existsSync(join(workDir, "cmd.txt"))).toBe(false);
    expect(notices(events, "approval.resolved").map((d) => [d.outcome, d.rule])).toEqual([
      ["approved", { toolName: "apply_patch", pathPrefix: workDir }],
      ["denied", undefined],
      ["denied", undefined],
    ]);
  });
  it("a deny rule naming the model's command (shell, commandPrefix cat) denies it under ask, though codex asks about it wrapped as /bin/bash -lc '...'", async () => {
    h = await codexHarness({ rules: [stepsInOrder("READ_SECRET", () => [{ command: "cat secret.txt" }])] });
    writeFileSync(join(h.env.workDir, "secret.txt"), "TOPSECRET\n");
    const requests: ApprovalRequest[] = [];
    const agent = new Agent(h.driver, {
      onApproval: (request) => {
        requests.push(request);
        request.approve();
      },
    });
    const stream = agent.stream("READ_SECRET", {
      policy: {
        approvals: { permission: "ask", rules: [{ toolName: "shell", commandPrefix: "cat", outcome: "deny", reason: "no reading" }] },
      },
    });
    const events: AgentEvent[] = [];
    for await (const event of stream) events.push(event);
    const result = await stream.result();
    await agent.close();
    expect(result.text).toBe("finished");
    expect(requests).toEqual([]);
    const requested = notices(events, "approval.requested");
    expect(requested).toEqual([expect.objectContaining({ toolName: "shell", rule: { toolName: "shell", commandPrefix: "cat" } })]);
    expect(notices(events, "approval.resolved").map((d) => [d.outcome, d.rule])).toEqual([
      ["denied", { toolName: "shell", commandPrefix: "cat" }],
    ]);
    const outputs = events.flatMap((e) => (e.type === "tool-result" ? [String(e.output)] : []));
    expect(outputs.join("\n")).not.toContain("TOPSECRET");
  });

  it.each([
    ["permission unset, sandbox workspace_write (approval policy never)", { sandbox: "workspace_write" as const, approvals: {} }],
    ["permission unset, no sandbox (codex's own on-request)", { approvals: {} }],
    ["permission inherit", { approvals: { permission: "inherit" as const } }],
  ])(
    "%s: a deny rule, which codex would never consult (it runs cat secret.txt unasked), is refused before launch",
    async (_name, policy) => {
      h = await codexHarness({ rules: [stepsInOrder("READ_SECRET", () => [{ command: "cat secret.txt" }])] });
      writeFileSync(join(h.env.workDir, "secret.txt"), "TOPSECRET\n");
      const requests: ApprovalRequest[] = [];
      const agent = new Agent(h.driver, {
        onApproval: (request) => {
          requests.push(request);
          request.deny("asked");
        },
      });
      // Without the rule: nothing is asked and the file is read.
      const events: AgentEvent[] = [];
      const stream = agent.stream("READ_SECRET", { policy });
      for await (const event of stream) events.push(event);
      await stream.result();
      expect(requests).toEqual([]);
      expect(events.flatMap((e) => (e.type === "tool-result" ? [String(e.output)] : []))).toEqual(["TOPSECRET\n"]);
      const served = h.server.requests.length;
      const verdict = await agent
        .run("READ_SECRET", {
          policy: { ...policy, approvals: { ...policy.approvals, rules: [{ toolName: "shell", commandPrefix: "cat", outcome: "deny" }] } },
        })
        .catch((error: unknown) => error);
      await agent.close();
      expect(verdict).toBeInstanceOf(InvalidPolicyError);
      expect(verdict).toMatchObject({ field: "approvals.rules[0].outcome" });
      expect((verdict as Error).message).toContain('use permission "ask"');
      expect(h.server.requests).toHaveLength(served);
    },
  );
  it("a command codex runs unasked (an earlier acceptForSession grant) that a deny rule remembered since names fails the run policy_violation", async () => {
    h = await codexHarness({
      rules: [
        stepsInOrder("GRANT_THEN_DENY", () => [{ command: "cat secret.txt" }, { command: "cat notes.txt" }, { command: "cat secret.txt" }]),
      ],
    });
    writeFileSync(join(h.env.workDir, "secret.txt"), "TOPSECRET\n");
    const requests: ApprovalRequest[] = [];
    const agent = new Agent(h.driver, {
      onApproval: (request) => {
        requests.push(request);
        if (requests.length === 1) request.answer("acceptForSession");
        else request.deny("never cat", { remember: { toolName: "shell", commandPrefix: "cat" } });
      },
    });
    const stream = agent.stream("GRANT_THEN_DENY", { policy: { approvals: { permission: "ask" } } });
    const events: AgentEvent[] = [];
    for await (const event of stream) events.push(event);
    const verdict = await stream.result().catch((error: unknown) => error);
    await agent.close();
    expect(requests.map((r) => (r.input as { command: string }).command)).toEqual([
      "/bin/bash -lc 'cat secret.txt'",
      "/bin/bash -lc 'cat notes.txt'",
    ]);
    const rule = { toolName: "shell", commandPrefix: "cat" };
    const unasked = notices(events, "approval.unasked");
    expect(unasked).toEqual([expect.objectContaining({ toolName: "shell", mode: "ask", rule })]);
    expect(verdict).toMatchObject({
      reason: "policy_violation",
      details: { fields: ["approvals.permission"], toolCallIds: [unasked[0]!.toolCallId] },
    });
    expect((verdict as Error).message).toContain(`named by the deny rule ${JSON.stringify(rule)}`);
    expect((verdict as { result: { enforcement: unknown } }).result.enforcement).toEqual(
      expect.arrayContaining([expect.objectContaining({ field: "approvals.permission", value: "ask", enforced: false })]),
    );
  });
  it("under ask codex 0.171.0 asks about every command, those it deems safe included, so a deny rule meets each", async () => {
    const commands = [
      "echo hi",
      "ls",
      "pwd",
      "head secret.txt",
      "wc -l secret.txt",
      "grep TOP secret.txt",
      "true",
      "sed -n 1p secret.txt",
      "git status",
    ];
    h = await codexHarness({ rules: [stepsInOrder("SAFE_COMMANDS", () => commands.map((command) => ({ command })))] });
    writeFileSync(join(h.env.workDir, "secret.txt"), "TOPSECRET\n");
    const requests: ApprovalRequest[] = [];
    const agent = new Agent(h.driver, {
      onApproval: (request) => {
        requests.push(request);
        request.deny("asked");
      },
    });
    const stream = agent.stream("SAFE_COMMANDS", { policy: { approvals: { permission: "ask" } } });
    const events: AgentEvent[] = [];
    for await (const event of stream) events.push(event);
    const result = await stream.result();
    await agent.close();
    expect(result.text).toBe("finished");
    expect(requests.map((r) => (r.input as { command: string }).command)).toEqual(
      commands.map((command) => (command.includes(" ") ? `/bin/bash -lc '${command}'` : `/bin/bash -lc ${command}`)),
    );
    expect(notices(events, "approval.unasked")).toEqual([]);
  });
});
