// A host tool's events on the real claude binary (pinned 2.1.332): the CLI reports the call on its
// stdout and calls the Agent's MCP server over HTTP, two paths either of which can reach the SDK
// first. The stream gives the call's `tool-call` before its approval, the tool's notices and its one
// `tool-result` (the host's, under the CLI's tool_use id), on every run.
import { afterEach, describe, it } from "vitest";
import { z } from "zod";
import { defineTool } from "adaptor";
import { expectHostToolEventOrder } from "../support/host-tool-events.js";
import { callThenReport, harness, type Harness } from "./support.js";

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe("claude: a host tool's events", () => {
  it("permission ask, five runs: each gives the call's tool-call, then its approval, the tool's notice and one tool-result (the host's, under the call's id)", async () => {
    const lookup = defineTool({
      name: "lookup",
      description: "Find an order by id",
      input: z.object({ id: z.string() }),
      handler: ({ id }, context) => {
        context.notice("lookup.note");
        return { id, total: 42 };
      },
    });
    h = await harness(callThenReport("LOOKUP", "mcp__adaptor__lookup", { id: "o-17" }), {}, { tools: [lookup] });
    await expectHostToolEventOrder(h.agent, "LOOKUP o-17", { policy: { approvals: { permission: "ask" } } }, '{"id":"o-17","total":42}');
  });
});
