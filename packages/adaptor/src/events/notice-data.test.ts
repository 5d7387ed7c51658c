import { describe, expect, expectTypeOf, it } from "vitest";
import type { McpServerState, McpStatus, Usage } from "@adaptor/driver";
import type { AgentEvent } from "./agent-event.js";
import { isNotice, type SessionInitMcpServer } from "./notice-data.js";

const meta = { runId: "r", sequence: 1, time: new Date(0) };
const init: AgentEvent = {
  type: "notice",
  kind: "session.init",
  data: { sessionId: "s-1", tools: ["Bash", "mcp__adaptor__lookup"], mcpServers: [{ name: "adaptor", status: "connected" }] },
  meta,
};
const compacted: AgentEvent = { type: "notice", kind: "context.compacted", data: { trigger: "manual", preTokens: 1200 }, meta };
const text: AgentEvent = { type: "text-delta", text: "session.init", meta };

describe("isNotice", () => {
  it("is true for a notice of the kind asked for only", () => {
    expect([init, compacted, text].map((event) => isNotice(event, "session.init"))).toEqual([true, false, false]);
    expect([init, compacted, text].map((event) => isNotice(event, "context.compacted"))).toEqual([false, true, false]);
  });

  it("narrows data to the kind's documented shape, so its fields read without casts", () => {
    const events: AgentEvent[] = [init, compacted];
    const tools: (readonly string[] | undefined)[] = [];
    const sizes: (number | undefined)[] = [];
    for (const event of events) {
      if (isNotice(event, "session.init")) {
        expectTypeOf(event.kind).toEqualTypeOf<"session.init">();
        expectTypeOf(event.data?.tools).toEqualTypeOf<readonly string[] | undefined>();
        expectTypeOf(event.data?.mcpServers).toEqualTypeOf<readonly SessionInitMcpServer[] | undefined>();
        expectTypeOf(event.meta.sequence).toEqualTypeOf<number>();
        tools.push(event.data?.tools);
      }
      if (isNotice(event, "context.compacted")) {
        expectTypeOf(event.data?.trigger).toEqualTypeOf<"manual" | "auto" | undefined>();
        sizes.push(event.data?.preTokens);
      }
      if (isNotice(event, "model.response")) expectTypeOf(event.data?.usage).toEqualTypeOf<Usage | undefined>();
      if (isNotice(event, "mcp.status")) {
        expectTypeOf(event.data?.servers).toEqualTypeOf<readonly McpServerState[] | undefined>();
        expectTypeOf(event.data?.servers?.[0]?.status).toEqualTypeOf<McpStatus | undefined>();
      }
    }
    expect(tools).toEqual([["Bash", "mcp__adaptor__lookup"]]);
    expect(sizes).toEqual([1200]);
    // @ts-expect-error: a kind without a documented shape is not accepted
    isNotice(init, "session.inti");
  });
});
