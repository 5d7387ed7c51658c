import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { RequestView, ScriptRule } from "@adaptor/testkit";
import type { AgentEvent, ApprovalRequest } from "adaptor";
import { harness, type Harness } from "./support.js";

// Real claude binary: a rule the host remembers with its answer is decided by the SDK's broker.
// Claude Code is only ever told `allow` for the one call (no `updatedPermissions`, nothing written
// to its settings), so it asks again; the SDK answers the repeated ask at once and the command runs.

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

/** A tool call of the scripted model. */
type Call = { readonly name: string; readonly input: Record<string, unknown> };

/** A turn in which the model makes the `calls` one after the other, then says "finished". */
function callsInOrder(marker: string, calls: readonly Call[] | (() => readonly Call[])): ScriptRule {
  return {
    when: (view) => view.firstUserText.includes(marker),
    reply: (view) => {
      const call = (typeof calls === "function" ? calls() : calls)[toolResults(view)];
      return call === undefined ? { text: "finished" } : { toolUse: call };
    },
  };
}

/** A turn in which the model runs the Bash `commands` one after the other, then says "finished". */
function commandsInOrder(marker: string, commands: readonly string[]): ScriptRule {
  return callsInOrder(
    marker,
    commands.map((command) => ({ name: "Bash", input: { command, description: "step" } })),
  );
}

const notices = (events: readonly AgentEvent[], kind: string) =>
  events.flatMap((e) => (e.type === "notice" && e.kind === kind ? [e.data ?? {}] : []));

describe("remembered approval rules on claude (real binary)", () => {
  it("approve({ remember }) with the ask's suggestion: the same command again is approved by the SDK and runs; another command still asks", async () => {
    h = await harness([commandsInOrder("REMEMBER_RUN", ["echo one >> log.txt", "echo one >> log.txt", "echo two >> log.txt"])]);
    const requests: ApprovalRequest[] = [];
    const stream = h.agent.stream("REMEMBER_RUN", {
      policy: { approvals: { permission: "ask" } },
      onApproval: (request) => {
        requests.push(request);
        if (requests.length === 1) request.approve({ remember: request.suggestions[0]! });
        else request.deny("not this one");
      },
    });
    const events: AgentEvent[] = [];
    for await (const event of stream) events.push(event);
    const result = await stream.result();
    expect(result.text).toBe("finished");
    expect(requests.map((r) => r.title)).toEqual(["Bash: echo one >> log.txt", "Bash: echo two >> log.txt"]);
    const rule = { toolName: "Bash", command: "echo one >> log.txt" };
    expect(requests[0]!.suggestions).toEqual([rule]);
    expect(readFileSync(join(h.env.workDir, "log.txt"), "utf8")).toBe("one\none\n");
    expect(notices(events, "approval.resolved").map((d) => [d.outcome, d.rule])).toEqual([
      ["approved", undefined],
      ["approved", rule],
      ["denied", undefined],
    ]);
    expect(result.permissionDenials?.map((d) => d.input)).toEqual([{ command: "echo two >> log.txt", description: "step" }]);
  });

  it("approve({ remember }) with a file's folder: a later write in that folder is approved by the SDK; one elsewhere still asks", async () => {
    let calls: Call[] = [];
    h = await harness([callsInOrder("REMEMBER_FOLDER", () => calls)]);
    const src = join(h.env.workDir, "src");
    const other = join(h.env.workDir, "other");
    mkdirSync(src);
    mkdirSync(other);
    const write = (file: string): Call => ({ name: "Write", input: { file_path: file, content: "x\n" } });
    calls = [write(join(src, "a.txt")), write(join(src, "b.txt")), write(join(other, "c.txt"))];
    const requests: ApprovalRequest[] = [];
    const result = await h.agent.run("REMEMBER_FOLDER", {
      policy: { approvals: { permission: "ask" } },
      onApproval: (request) => {
        requests.push(request);
        if (requests.length === 1) request.approve({ remember: request.suggestions[0]! });
        else request.deny("not there");
      },
    });
    expect(result.text).toBe("finished");
    expect(requests[0]!.suggestions).toEqual([{ toolName: "Write", pathPrefix: src }]);
    expect(requests.map((r) => (r.input as { file_path: string }).file_path)).toEqual([join(src, "a.txt"), join(other, "c.txt")]);
    expect(existsSync(join(src, "a.txt")) && existsSync(join(src, "b.txt"))).toBe(true);
    expect(existsSync(join(other, "c.txt"))).toBe(false);
  });
});
