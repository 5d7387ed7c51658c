import { afterEach, describe, expect, it } from "vitest";
import { whenToolResult, whenUserSays } from "@adaptor/testkit";
import { Agent } from "adaptor";
import { claude } from "@adaptor/claude";
import { harness, type Harness } from "./support.js";

// The `agents` run option on the real claude binary: the model delegates to a subagent defined
// for the run (its Agent tool with `subagent_type`), and the subagent's own model request carries
// the definition's prompt as its system prompt.

let h: Harness | undefined;
let agent: Agent | undefined;
afterEach(async () => {
  await agent?.close();
  await h?.close();
  h = agent = undefined;
});

/** Polls `probe` every 100 ms until it returns a value (up to 60 s, a safety net). */
async function until<T>(probe: () => T | undefined): Promise<T> {
  for (let waited = 0; waited < 60_000; waited += 100) {
    const value = probe();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error("condition not met within 60 s");
}

describe("subagent definitions (real binary)", { timeout: 180_000 }, () => {
  it("a subagent defined for the run is delegated to, with its prompt as the subagent's system prompt", async () => {
    h = await harness([
      {
        when: whenUserSays("delegate the review"),
        reply: {
          toolUse: {
            name: "Agent",
            input: { description: "review notes", prompt: "check the tone of NOTES.md", subagent_type: "release-reviewer" },
          },
        },
      },
      { when: whenUserSays("check the tone of NOTES.md"), reply: { text: "the tone is fine" } },
      { when: whenToolResult("Agent"), reply: { text: "the reviewer says the tone is fine" } },
    ]);
    agent = new Agent(claude({ cwd: h.env.workDir, env: h.env.env, inheritEnv: false, model: "claude-sonnet-4-5" }));
    const result = await agent.run("delegate the review", {
      agents: {
        "release-reviewer": { description: "Reviews release notes for tone", prompt: "You are the release reviewer. Judge tone only." },
      },
      policy: { approvals: { permission: "auto_approve" } },
    });
    expect(result.text).toContain("the reviewer says the tone is fine");
    const toolResult = h.server.requests.find((r) => r.view.lastToolResult?.toolName === "Agent");
    expect(toolResult?.view.lastToolResult?.isError).toBe(false);
    // claude-code 2.1.332 launches the subagent in the background ("Async agent launched"), so its
    // request may come after the parent's answer: wait for it (a condition, not a delay).
    const server = h.server;
    const subagentCall = await until(() => server.requests.find((r) => r.view.lastUserText.includes("check the tone of NOTES.md")));
    expect(subagentCall.view.system).toContain("You are the release reviewer. Judge tone only.");
  });
});
