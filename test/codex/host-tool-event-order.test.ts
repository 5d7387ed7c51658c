// A host tool's events on the real codex app-server: codex reports the call (`item/started`, on its
// stdout) and calls the Agent's MCP server (over HTTP) on two paths, so the MCP request can reach the
// SDK first. The stream still gives the call's `tool-call` before its approval, the tool's notices
// and its one `tool-result`, on every run.
import { afterEach, describe, it } from "vitest";
import { z } from "zod";
import { whenPromptSays } from "@adaptor/testkit";
import { Agent, defineTool } from "adaptor";
import { expectHostToolEventOrder } from "../support/host-tool-events.js";
import { codexHarness, type CodexHarness } from "./support.js";

let h: CodexHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe("codex app-server: a host tool's events", () => {
  it("permission ask, five runs: each gives the call's tool-call, then its approval, the tool's notice and one tool-result (the host's, under the call's id)", async () => {
    h = await codexHarness({
      rules: [
        {
          when: whenPromptSays("LOOKUP"),
          reply: { functionCall: { name: "lookup", namespace: "mcp__adaptor", arguments: { word: "codex" } } },
        },
      ],
    });
    const lookup = defineTool({
      name: "lookup",
      description: "Looks up a word",
      input: z.object({ word: z.string() }),
      handler: ({ word }, context) => {
        context.notice("lookup.note");
        return `meaning of ${word}`;
      },
    });
    await using agent = new Agent(h.driver, { tools: [lookup], policy: { sandbox: "unrestricted", approvals: { permission: "ask" } } });
    await expectHostToolEventOrder(agent, "LOOKUP please", {}, "meaning of codex");
  });
});
