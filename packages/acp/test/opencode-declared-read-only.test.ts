// acp() with a declared read-only session mode (`sandboxModes.read_only`) on the real OpenCode binary
// (pinned 1.18.33), run without the opencode() preset's isolation: the workspace's own opencode.json
// loosens that mode (its `plan` agent may run the shell), which the host cannot see. The evidence it
// does see, a shell call that ran without an ask, fails the run.
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { whenChatUserSays, type ChatScriptRule } from "@adaptor/testkit";
import { ErrPolicyViolation, isError, RunError } from "adaptor";
import { acp } from "../src/index.js";
import { chatHarness, type ChatHarness } from "./chat-agent.js";
import { opencodeTestConfig } from "./opencode-env.js";

const OPENCODE_BIN = fileURLToPath(new URL("../node_modules/opencode-ai/bin/opencode.exe", import.meta.url));

let h: ChatHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const touchArguments = (text: string) => ({ command: `touch ${/RUN_TOUCH (\S+)/.exec(text)?.[1] ?? ""}`, description: "touch" });

/** "say hello" → a greeting; `RUN_TOUCH <path>` → OpenCode's `bash` touching it. */
const RULES: readonly ChatScriptRule[] = [
  { when: whenChatUserSays("say hello"), reply: { text: "Hello from the scripted model." } },
  { when: whenChatUserSays("RUN_TOUCH"), reply: (view) => ({ toolCall: { name: "bash", arguments: touchArguments(view.lastUserText) } }) },
];

describe("acp() on OpenCode with sandboxModes { read_only: 'plan' } (real binary)", () => {
  it("the workspace's opencode.json lets its plan agent run the shell: the unasked bash call fails the run with policy_violation", async () => {
    h = await chatHarness((home, server) => {
      const config = opencodeTestConfig(home, server);
      return acp({
        type: "opencode-plain",
        command: OPENCODE_BIN,
        args: ["acp"],
        cwd: config.cwd,
        inheritEnv: false,
        env: { ...config.env, OPENCODE_DISABLE_AUTOUPDATE: "1", OPENCODE_CONFIG_CONTENT: JSON.stringify(config.opencodeConfig) },
        sandboxModes: { read_only: "plan" },
      });
    }, RULES);
    await writeFile(join(h.workDir, "opencode.json"), JSON.stringify({ agent: { plan: { permission: { bash: "allow" } } } }));
    const target = join(h.workDir, "written.txt");
    const asked: string[] = [];
    const error = await h.agent
      .run(`RUN_TOUCH ${target}`, { policy: { sandbox: "read_only" }, onApproval: (r) => (asked.push(r.toolName ?? ""), r.deny("no")) })
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    // The shell call ran unasked (the mode did not hold): the verdict says so instead of reporting read_only enforced.
    expect(asked).toEqual([]);
    expect(isError(error, ErrPolicyViolation)).toBe(true);
    expect((error as RunError).details).toMatchObject({ toolName: "bash", toolKind: "execute", fields: ["sandbox"] });
    expect((error as RunError).result.enforcement).toEqual([
      expect.objectContaining({ field: "sandbox", value: "read_only", enforced: false }),
    ]);
  });
});
