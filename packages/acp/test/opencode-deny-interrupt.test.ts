import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { whenChatUserSays, type ChatScriptRule } from "@adaptor/testkit";
import type { ApprovalRequest } from "adaptor";
import { opencode } from "../src/index.js";
import { chatHarness, type ChatHarness } from "./chat-agent.js";
import { opencodeTestConfig } from "./opencode-env.js";

// `request.deny(reason, { interrupt: true })` on an ACP agent that can interrupt a turn (OpenCode
// 1.18.33, real binary, scripted chat-completions model): the write is refused, the turn ends
// interrupted (session/cancel), and the model is not asked again after the deny.

/** `WRITE_IT <path>` → OpenCode's `write` of "hello"; the request with the call's result is named "after-deny". */
const RULES: readonly ChatScriptRule[] = [
  {
    name: "write",
    when: whenChatUserSays("WRITE_IT"),
    reply: (view) => ({
      toolCall: { name: "write", arguments: { filePath: /WRITE_IT (\S+)/.exec(view.lastUserText)?.[1] ?? "", content: "hello\n" } },
    }),
  },
  { name: "after-deny", when: (view) => view.lastToolResult !== undefined, reply: { text: "went on after the deny" } },
];

let h: ChatHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe("opencode deny with interrupt (real binary)", () => {
  it("run(): the write is refused and the turn ends interrupted, the model not asked again", async () => {
    h = await chatHarness((home, server) => opencode(opencodeTestConfig(home, server)), RULES);
    const file = join(h.workDir, "never.txt");
    const requests: ApprovalRequest[] = [];
    const result = await h.agent.run(`WRITE_IT ${file}`, {
      policy: { approvals: { permission: "ask" } },
      onApproval: (request) => {
        requests.push(request);
        request.deny("stop everything", { interrupt: true });
      },
    });
    expect(requests.map((request) => request.status)).toEqual(["denied"]);
    expect(result.status).toBe("interrupted");
    expect(existsSync(file)).toBe(false);
    expect(h.server.requests.filter((request) => request.rule === "after-deny")).toEqual([]);
  });
});
