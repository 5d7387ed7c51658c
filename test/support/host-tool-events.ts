import { expect } from "vitest";
import type { Agent, AgentEvent, RunOptions } from "adaptor";

/** The run's events about tool calls (but argument fragments), approvals and the `lookup.note` notices, one line each. */
function toolSequence(events: readonly AgentEvent[]): string[] {
  return events.flatMap((e) => {
    if (e.type === "tool-call") return e.phase === "args" ? [] : [`call-${e.phase} ${e.name} ${e.id}`];
    if (e.type === "approval-request") return [`approval ${e.request.toolName} ${e.request.toolCallId}`];
    if (e.type === "tool-result") return [`result ${e.name} ${e.id} ${e.output}`];
    if (e.type === "notice" && e.kind === "lookup.note") return [`notice ${String(e.data?.["toolCallId"])}`];
    return [];
  });
}

/**
 * Streams `prompt` on `agent` five times, approving every ask, and expects each run's events about
 * the host tool `lookup` (which emits a `lookup.note` notice and answers `output`) in this order,
 * all under the one id of the CLI's call: the call's `tool-call` start and end
 * (`mcp__adaptor__lookup`), its approval, the tool's notice, and one `tool-result` (the host's).
 */
export async function expectHostToolEventOrder(agent: Agent, prompt: string, options: RunOptions, output: string): Promise<void> {
  const seen: string[][] = [];
  const expected: string[][] = [];
  for (let run = 0; run < 5; run++) {
    const stream = agent.stream(prompt, { ...options, onApproval: (request) => request.approve() });
    const events: AgentEvent[] = [];
    for await (const event of stream) events.push(event);
    await stream.result();
    const call = events.find((e) => e.type === "tool-call");
    const id = call?.type === "tool-call" ? call.id : "no tool-call";
    seen.push(toolSequence(events));
    expected.push([
      `call-start mcp__adaptor__lookup ${id}`,
      `call-end mcp__adaptor__lookup ${id}`,
      `approval lookup ${id}`,
      `notice ${id}`,
      `result lookup ${id} ${output}`,
    ]);
  }
  expect(seen).toEqual(expected);
}
