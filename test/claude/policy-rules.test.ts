import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { RequestView, ScriptRule } from "@adaptor/testkit";
import { acceptEdits, type AgentEvent, type ApprovalRequest } from "adaptor";
import { harness, type Harness } from "./support.js";

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
});
