// A workspace is not the host: the working directory's `.codebuddy/settings.json` is not loaded by
// default, so its hooks (shell commands of the repository's choosing) do not run. On the real CLI.
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { startChatCompletionsServer, whenChatUserSays } from "@adaptor/testkit";
import { Agent, ErrPolicyCapabilityUnsupported, isError } from "adaptor";
import { codebuddy } from "../src/index.js";
import { CODEBUDDY_BIN, codebuddyTestEnv, SCRIPTED_MODEL } from "./support.js";

/** Workspace settings whose hooks touch `marker` at session start, on the prompt and at the stop. */
function hookedWorkspace(workDir: string, marker: string): void {
  mkdirSync(join(workDir, ".codebuddy"));
  const hook = [{ matcher: "*", hooks: [{ type: "command", command: `touch ${marker}` }] }];
  writeFileSync(
    join(workDir, ".codebuddy", "settings.json"),
    JSON.stringify({ hooks: { SessionStart: hook, UserPromptSubmit: hook, Stop: hook } }),
  );
}

describe("codebuddy: the workspace's settings (real CLI)", () => {
  it.each([false, true])("workspaceSettings %s: the workspace's hooks run only when asked for", async (workspaceSettings) => {
    await using server = await startChatCompletionsServer({ rules: [{ when: whenChatUserSays("hello"), reply: { text: "ok" } }] });
    await using env = codebuddyTestEnv(server);
    const marker = join(env.workDir, "hook-ran");
    hookedWorkspace(env.workDir, marker);
    await using agent = new Agent(
      codebuddy({ command: CODEBUDDY_BIN, model: SCRIPTED_MODEL, cwd: env.workDir, env: env.env, inheritEnv: false, workspaceSettings }),
    );
    expect((await agent.run("hello")).text).toBe("ok");
    expect(existsSync(marker)).toBe(workspaceSettings);
  });

  it("workspaceSettings under an ask policy is refused before the CLI starts", async () => {
    await using server = await startChatCompletionsServer({ rules: [{ when: whenChatUserSays("hello"), reply: { text: "ok" } }] });
    await using env = codebuddyTestEnv(server);
    const marker = join(env.workDir, "hook-ran");
    hookedWorkspace(env.workDir, marker);
    await using agent = new Agent(
      codebuddy({
        command: CODEBUDDY_BIN,
        model: SCRIPTED_MODEL,
        cwd: env.workDir,
        env: env.env,
        inheritEnv: false,
        workspaceSettings: true,
      }),
    );
    const error = await agent.run("hello", { policy: { approvals: { permission: "ask" } } }).catch((e: unknown) => e);
    expect(isError(error, ErrPolicyCapabilityUnsupported)).toBe(true);
    expect((error as Error).message).toContain("workspaceSettings");
    expect(existsSync(marker)).toBe(false);
    expect(server.requests).toHaveLength(0);
  });
});
