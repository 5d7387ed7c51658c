import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { InvalidOptionError } from "@adaptor/errors";
import { whenChatUserSays, type ChatScriptRule } from "@adaptor/testkit";
import type { AgentEvent, ApprovalRequest } from "adaptor";
import { opencode } from "../src/index.js";
import { chatHarness, type ChatHarness } from "./chat-agent.js";
import { opencodeTestConfig } from "./opencode-env.js";

// OpenCode 1.18.33 over ACP (real binary, scripted chat-completions model): a permission ask lists
// the agent's options for the one call in `request.choices` (under ask its allow_always option, which
// would answer later calls unasked, is left out), and `answer(optionId)` selects that option.

/** `WRITE_IT <path>` → OpenCode's `write` of "hello". */
const RULES: readonly ChatScriptRule[] = [
  {
    when: whenChatUserSays("WRITE_IT"),
    reply: (view) => ({
      toolCall: { name: "write", arguments: { filePath: /WRITE_IT (\S+)/.exec(view.lastUserText)?.[1] ?? "", content: "hello\n" } },
    }),
  },
];

let h: ChatHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/** Runs `prompt` under `ask`, applying `decide` to every ask; returns the asks and what `decide` threw. */
async function runWith(harness: ChatHarness, prompt: string, decide: (request: ApprovalRequest) => void) {
  const requests: ApprovalRequest[] = [];
  const thrown: unknown[] = [];
  const result = await harness.agent.run(prompt, {
    policy: { approvals: { permission: "ask" } },
    onApproval: (request) => {
      requests.push(request);
      try {
        decide(request);
      } catch (error) {
        thrown.push(error);
      }
    },
  });
  return { requests, thrown, result };
}

describe("opencode permission asks: answer(optionId) (real binary)", () => {
  it("the ask's choices are OpenCode's one-call options (its allow_always left out under ask); answer(<the allow_once option id>) selects it and the write lands", async () => {
    h = await chatHarness((home, server) => opencode(opencodeTestConfig(home, server)), RULES);
    const file = join(h.workDir, "once.txt");
    const { requests, thrown, result } = await runWith(h, `WRITE_IT ${file}`, (request) => {
      const once = request.choices?.find((choice) => choice.description === "allow_once");
      request.answer(once?.key ?? "none listed");
    });
    expect(thrown).toEqual([]);
    expect(requests).toHaveLength(1);
    expect(requests[0]?.kind).toBe("permission");
    const options = requests[0]?.details?.["options"] as { optionId: string; name: string; kind: string }[];
    expect(requests[0]?.choices).toEqual(options.map((o) => ({ key: o.optionId, label: o.name, description: o.kind })));
    expect(options.map((o) => o.kind)).toEqual(["allow_once", "reject_once"]);
    expect(requests[0]?.status).toBe("answered");
    expect(result.status).toBe("completed");
    expect(readFileSync(file, "utf8")).toBe("hello\n");
  });

  it("an option id the ask does not list throws InvalidOptionError; the ask stays pending, and answering its reject option refuses the write", async () => {
    h = await chatHarness((home, server) => opencode(opencodeTestConfig(home, server)), RULES);
    const file = join(h.workDir, "never.txt");
    const events: AgentEvent[] = [];
    const requests: ApprovalRequest[] = [];
    const thrown: unknown[] = [];
    const stream = h.agent.stream(`WRITE_IT ${file}`, {
      policy: { approvals: { permission: "ask" } },
      onApproval: (request) => {
        requests.push(request);
        try {
          request.answer("allow-everything");
        } catch (error) {
          thrown.push(error);
          request.answer(request.choices?.find((choice) => choice.description === "reject_once")?.key ?? "none listed");
        }
      },
    });
    for await (const event of stream) events.push(event);
    const result = await stream.result();
    expect(thrown).toHaveLength(1);
    expect(thrown[0]).toBeInstanceOf(InvalidOptionError);
    expect(thrown[0]).toMatchObject({ subject: "answer()", field: "choice" });
    expect((thrown[0] as Error).message).toContain(`"${requests[0]?.choices?.find((choice) => choice.description === "allow_once")?.key}"`);
    expect(requests).toHaveLength(1);
    expect(requests[0]?.status).toBe("answered");
    expect(events.find((e) => e.type === "tool-result")).toMatchObject({ isError: true, output: "denied: Reject" });
    expect(result.status).toBe("completed");
    expect(existsSync(file)).toBe(false);
  });
});
