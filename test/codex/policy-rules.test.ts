import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { addFilePatch, type ResponsesRequestView, type ResponsesScriptRule } from "@adaptor/testkit";
import { acceptEdits, Agent, type AgentEvent, type ApprovalRequest } from "adaptor";
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
});
