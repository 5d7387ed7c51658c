import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { ApprovalMode, DriverRequest } from "@adaptor/driver";
import {
  Agent,
  RunError,
  defineTool,
  isError,
  ErrInvalidDefinition,
  type AgentEvent,
  type ApprovalRequest,
  type RunOptions,
  type Tool,
} from "adaptor";
import { capabilityDriver } from "./support/capability-driver.js";
import { connectHostTools } from "./support/host-tool-client.js";

// Host tools follow the run's permission mode through the SDK's own host-tool server, whatever the
// driver: the scripted driver here plays a CLI that calls the tool over MCP, as every driver's CLI does.

const MODES: readonly ApprovalMode[] = ["inherit", "ask", "auto_approve", "auto_deny"];
const CAPS = {
  mcp: { transports: ["stdio", "http"] as const },
  approvals: { permission: MODES, plan_review: ["inherit" as const], question: ["inherit" as const] },
};

const connect = connectHostTools;

interface Seen {
  readonly handled: unknown[];
  readonly replies: { text: string; isError: boolean }[];
  readonly asked: ApprovalRequest[];
  readonly events: AgentEvent[];
  readonly error: unknown;
}

/** One run whose "CLI" calls `tool` once per entry of `calls` over the host-tool MCP server. */
async function callHostTool(
  calls: readonly unknown[],
  options: RunOptions,
  make: (handled: unknown[]) => Tool = (handled) =>
    defineTool({
      name: "lookup",
      description: "Find an order",
      input: z.object({ id: z.string().min(2) }),
      handler: ({ id }) => {
        handled.push(id);
        return { id, total: 42 };
      },
    }),
): Promise<Seen> {
  const handled: unknown[] = [];
  const replies: { text: string; isError: boolean }[] = [];
  const asked: ApprovalRequest[] = [];
  const driver = capabilityDriver(CAPS, async (request: DriverRequest, sink) => {
    const client = await connect(request);
    for (const [index, args] of calls.entries()) {
      // As a CLI does: the call and its input are reported before the tool is called.
      sink.emit({ type: "tool-call", phase: "start", id: `toolu_${index}`, name: "mcp__adaptor__lookup" });
      sink.emit({ type: "tool-call", phase: "end", id: `toolu_${index}`, name: "mcp__adaptor__lookup", input: args });
      const reply = (await client.callTool({
        name: "lookup",
        arguments: args as Record<string, unknown>,
        _meta: { "claudecode/toolUseId": `toolu_${index}` },
      })) as {
        content: { text: string }[];
        isError?: boolean;
      };
      replies.push({ text: reply.content[0]?.text ?? "", isError: reply.isError === true });
    }
    await client.close();
    return { text: "done" };
  });
  await using agent = new Agent(driver, { tools: [make(handled)] });
  const onApproval = options.onApproval;
  const stream = agent.stream("go", {
    ...options,
    ...(onApproval
      ? {
          onApproval: (request, context) => {
            asked.push(request);
            return onApproval(request, context);
          },
        }
      : {}),
  });
  const events: AgentEvent[] = [];
  for await (const event of stream) events.push(event);
  const error = await stream.result().then(
    () => undefined,
    (e: unknown) => e,
  );
  return { handled, replies, asked, events, error };
}

const ASK = { policy: { approvals: { permission: "ask" as const } } };

describe("host tools follow the run's permission mode", () => {
  it("ask: onApproval gets the call (toolName the tool's name, input its arguments) and a deny keeps the handler from running", async () => {
    const seen = await callHostTool([{ id: "o-17" }], { ...ASK, onApproval: (request) => request.deny("not today") });
    expect(seen.asked.map((r) => [r.kind, r.toolName, r.toolCallId, r.input, r.inputEditable])).toEqual([
      ["permission", "lookup", "toolu_0", { id: "o-17" }, true],
    ]);
    expect(seen.asked[0]?.title).toBe('lookup: {"id":"o-17"}');
    expect(seen.handled).toEqual([]);
    expect(seen.replies).toEqual([{ text: "permission_denied: not today", isError: true }]);
    expect(seen.error).toBeUndefined();
    const requests = seen.events.flatMap((e) => (e.type === "approval-request" ? [e.request.toolName] : []));
    expect(requests).toEqual(["lookup"]);
    expect(seen.events.find((e) => e.type === "tool-result" && e.name === "lookup")).toMatchObject({
      id: "toolu_0",
      output: "permission_denied: not today",
      isError: true,
    });
  });

  it("ask: an approve runs the call; approve({ updatedInput }) runs the edit, checked against the tool's schema", async () => {
    const edits: unknown[] = [{ id: "o-99" }, { id: 7 }];
    const seen = await callHostTool([{ id: "o-1" }, { id: "o-2" }, { id: "o-3" }], {
      ...ASK,
      onApproval: (request) => {
        const edit = (request.input as { id: string }).id === "o-1" ? undefined : edits.shift();
        request.approve(edit === undefined ? {} : { updatedInput: edit });
      },
    });
    expect(seen.asked).toHaveLength(3);
    expect(seen.handled).toEqual(["o-1", "o-99"]);
    expect(seen.replies).toEqual([
      { text: '{"id":"o-1","total":42}', isError: false },
      { text: '{"id":"o-99","total":42}', isError: false },
      { text: "invalid_input: /id: must be string", isError: true },
    ]);
  });

  it("auto_approve runs the call and auto_deny denies it, neither asking the handler", async () => {
    const onApproval = (request: ApprovalRequest): void => request.deny("should not be asked");
    const approved = await callHostTool([{ id: "o-1" }], { policy: { approvals: { permission: "auto_approve" } }, onApproval });
    expect([approved.asked, approved.handled, approved.replies[0]?.isError]).toEqual([[], ["o-1"], false]);
    const denied = await callHostTool([{ id: "o-1" }], { policy: { approvals: { permission: "auto_deny" } }, onApproval });
    expect([denied.asked, denied.handled]).toEqual([[], []]);
    expect(denied.replies).toEqual([{ text: "permission_denied: denied by policy", isError: true }]);
    // The auto_deny fallback `abort` ends the run as a denial, as for a CLI's own tool.
    const aborted = await callHostTool([{ id: "o-1" }], { policy: { approvals: { permission: "auto_deny", onReject: "abort" } } });
    expect(aborted.handled).toEqual([]);
    expect(aborted.error).toBeInstanceOf(RunError);
    expect((aborted.error as RunError).reason).toBe("approval_denied");
  });

  it("inherit (the default policy) runs the call without asking, as before", async () => {
    const seen = await callHostTool([{ id: "o-1" }], { onApproval: (request) => request.deny("should not be asked") });
    expect([seen.asked, seen.handled, seen.replies[0]?.isError]).toEqual([[], ["o-1"], false]);
  });

  it("needsApproval: false always runs without asking; true asks even under inherit", async () => {
    const tool = (needsApproval: boolean) => (handled: unknown[]) =>
      defineTool({
        name: "lookup",
        description: "Find an order",
        input: { type: "object" },
        needsApproval,
        handler: () => {
          handled.push("ran");
          return "ok";
        },
      });
    const deny = (request: ApprovalRequest): void => request.deny("no");
    const trusted = await callHostTool([{}], { ...ASK, onApproval: deny }, tool(false));
    expect([trusted.asked, trusted.handled]).toEqual([[], ["ran"]]);
    const trustedDeny = await callHostTool([{}], { policy: { approvals: { permission: "auto_deny" } } }, tool(false));
    expect(trustedDeny.handled).toEqual(["ran"]);
    const demanding = await callHostTool([{}], { onApproval: deny }, tool(true));
    expect([demanding.asked.map((r) => r.toolName), demanding.handled]).toEqual([["lookup"], []]);
    const bad = defineTool({ name: "x", description: "x", input: { type: "object" }, needsApproval: "yes" as never, handler: () => 1 });
    expect(isError(bad.definitionError, ErrInvalidDefinition)).toBe(true);
    expect(bad.definitionError?.message).toMatch(/needsApproval must be a boolean/);
  });

  it("run() without onApproval under ask: the host tool does not run and the run fails as unanswerable", async () => {
    const handled: unknown[] = [];
    const driver = capabilityDriver(CAPS, async (request: DriverRequest, sink) => {
      const client = await connect(request);
      sink.emit({ type: "tool-call", phase: "start", id: "toolu_1", name: "mcp__adaptor__lookup" });
      sink.emit({ type: "tool-call", phase: "end", id: "toolu_1", name: "mcp__adaptor__lookup", input: { id: "o-1" } });
      await client
        .callTool({ name: "lookup", arguments: { id: "o-1" }, _meta: { "claudecode/toolUseId": "toolu_1" } })
        .catch(() => undefined);
      await client.close().catch(() => undefined);
      return { text: "done" };
    });
    const lookup = defineTool({
      name: "lookup",
      description: "Find an order",
      input: { type: "object" },
      handler: () => handled.push("ran"),
    });
    await using agent = new Agent(driver, { tools: [lookup] });
    const error = await agent.run("go", ASK).catch((e: unknown) => e);
    expect(handled).toEqual([]);
    expect(error).toBeInstanceOf(RunError);
    expect((error as RunError).reason).toBe("approval_denied");
    expect((error as RunError).details).toMatchObject({ toolName: "lookup", unanswerable: true });
  });
});
