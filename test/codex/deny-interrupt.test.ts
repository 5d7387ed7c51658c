import { afterEach, describe, expect, it } from "vitest";
import { whenPromptSays, whenToolOutput } from "@adaptor/testkit";
import { Agent } from "adaptor";
import { codex } from "@adaptor/codex";
import { codexHarness, type CodexHarness } from "./support.js";

// `request.deny(reason, { interrupt: true })` on the real codex binary (app-server): the command is
// declined and the turn ends as an interrupt, with no further model request, as on Claude.

let h: CodexHarness | undefined;
let agent: Agent | undefined;
afterEach(async () => {
  await agent?.close();
  await h?.close();
  h = agent = undefined;
});

describe("codex deny with interrupt (real binary)", { timeout: 120_000 }, () => {
  it("run(): the command is declined and the turn ends interrupted, the model not asked again", async () => {
    h = await codexHarness({
      rules: [
        {
          name: "call",
          when: whenPromptSays("DANGER"),
          reply: { functionCall: { name: "exec_command", arguments: { cmd: "touch never.txt" } } },
        },
        { name: "after-deny", when: whenToolOutput("exec_command"), reply: { text: "went on after the deny" } },
      ],
    });
    agent = new Agent(codex({ cwd: h.env.workDir, env: h.env.env, inheritEnv: false, killGraceMs: 1000 }));
    let asked = 0;
    const result = await agent.run("DANGER", {
      policy: { approvals: { permission: "ask" } },
      onApproval: (request) => {
        asked++;
        request.deny("stop everything", { interrupt: true });
      },
    });
    expect(asked).toBe(1);
    expect(result.status).toBe("interrupted");
    expect(result.permissionDenials?.map((denial) => denial.toolName)).toEqual(["shell"]);
    expect(h.server.requests.filter((request) => request.rule === "after-deny")).toEqual([]);
  });
});
