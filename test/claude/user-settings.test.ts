// The user's own Claude settings (`settings.json` in the config dir) load by default; config
// `userSettings: false` runs the agent isolated from them (the Claude Agent SDK's
// `settingSources: []`), while the driver's own settings and hooks still apply. On the real claude
// binary (pinned 2.1.332).
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { whenToolResult, whenUserSays } from "@adaptor/testkit";
import type { Policy } from "adaptor";
import { harness, type Harness } from "./support.js";

let h: Harness | undefined;
let work: string;
beforeEach(async () => {
  work = await mkdtemp(join(tmpdir(), "claude-user-settings-"));
});
afterEach(async () => {
  await h?.close();
  h = undefined;
  await rm(work, { recursive: true, force: true });
});

/** The user's settings: a prompt hook that touches `marker`, and a deny rule for Edit. */
async function userSettingsFile(configDir: string, marker: string): Promise<void> {
  const hook = [{ hooks: [{ type: "command", command: `touch ${marker}` }] }];
  await writeFile(join(configDir, "settings.json"), JSON.stringify({ hooks: { UserPromptSubmit: hook }, permissions: { deny: ["Edit"] } }));
}

describe("claude: the user's settings (real binary)", { timeout: 120_000 }, () => {
  it.each([undefined, { approvals: { permission: "ask" } } as Policy])(
    "by default the user's settings load (policy %j): the user's hook runs and the user's deny rule applies",
    async (policy) => {
      const marker = join(work, "user-hook-ran");
      h = await harness([{ when: whenUserSays("hello"), reply: { text: "hi" } }], {}, { onApproval: (r) => r.deny("no") });
      await userSettingsFile(h.env.configDir, marker);
      expect((await h.agent.run("hello", { cwd: work, ...(policy ? { policy } : {}) })).text).toBe("hi");
      expect(existsSync(marker)).toBe(true);
      expect(h.server.requests[0]!.view.toolNames).not.toContain("Edit");
      expect(h.server.requests[0]!.view.toolNames).toContain("Write");
    },
  );

  it("userSettings: false loads no settings file: the user's hook does not run and the user's deny rule is gone, while the driver's own settings file (disallowedTools) and hooks (onPromptSubmit) still apply", async () => {
    const marker = join(work, "user-hook-ran");
    h = await harness([{ when: whenUserSays("hello"), reply: { text: "hi" } }], { userSettings: false });
    await userSettingsFile(h.env.configDir, marker);
    const prompts: string[] = [];
    const hooks = {
      onPromptSubmit: ({ prompt }: { prompt: string }) => (prompts.push(prompt), { additionalContext: "DRIVER-HOOK-CONTEXT" }),
    };
    expect((await h.agent.run("hello", { cwd: work, hooks })).text).toBe("hi");
    expect(existsSync(marker)).toBe(false);
    expect(prompts).toEqual(["hello"]);
    const plain = h.server.requests.find((r) => r.rule !== undefined)!;
    expect(plain.view.toolNames).toContain("Edit");
    expect(plain.view.toolNames).toContain("Write");
    expect(JSON.stringify(plain.body)).toContain("DRIVER-HOOK-CONTEXT");
    const before = h.server.requests.length;
    expect((await h.agent.run("hello", { cwd: work, disallowedTools: ["Write"] })).text).toBe("hi");
    const denied = h.server.requests.slice(before).find((r) => r.rule !== undefined)!;
    expect(denied.view.toolNames).not.toContain("Write");
    expect(denied.view.toolNames).toContain("Edit");
    expect(existsSync(marker)).toBe(false);
  });

  it.each(["ask", "auto_deny"] as const)(
    "under %s a PreToolUse hook of the user's settings answering allow does not decide in the host's place, though it runs",
    async (mode) => {
      const target = join(work, "written.txt");
      const marker = join(work, "user-pretool-ran");
      const asked: string[] = [];
      h = await harness(
        [
          {
            when: whenUserSays("GO"),
            reply: { toolUse: { name: "Bash", input: { command: `echo x > ${target}`, description: "write" } } },
          },
          { when: whenToolResult("Bash"), reply: (v) => ({ text: `isError=${v.lastToolResult?.isError}` }) },
        ],
        {},
        { onApproval: (r) => (asked.push(r.title), r.deny("not here")) },
      );
      const allow = JSON.stringify({ hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "allow" } });
      const hook = [{ matcher: "*", hooks: [{ type: "command", command: `touch ${marker}; echo '${allow}'` }] }];
      await writeFile(join(h.env.configDir, "settings.json"), JSON.stringify({ hooks: { PreToolUse: hook } }));
      const result = await h.agent.run("GO", { cwd: work, policy: { approvals: { permission: mode } } });
      expect(existsSync(marker)).toBe(true);
      expect(existsSync(target)).toBe(false);
      expect(asked).toEqual(mode === "ask" ? [`Bash: echo x > ${target}`] : []);
      expect(result.text).toBe("isError=true");
    },
  );

  it("under read_only no hook of the user's settings runs: one answering allow does not let a read outside the working directory past dontAsk, while the driver's own hooks still run", async () => {
    const outside = await mkdtemp(join(tmpdir(), "claude-user-settings-outside-"));
    try {
      await writeFile(join(outside, "secret.txt"), "SECRET-OUTSIDE");
      const marker = join(work, "user-pretool-ran");
      h = await harness([
        { when: whenUserSays("GO"), reply: { toolUse: { name: "Read", input: { file_path: join(outside, "secret.txt") } } } },
        { when: whenToolResult("Read"), reply: (v) => ({ text: `isError=${v.lastToolResult?.isError}` }) },
      ]);
      const allow = JSON.stringify({ hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "allow" } });
      const hook = [{ matcher: "*", hooks: [{ type: "command", command: `touch ${marker}; echo '${allow}'` }] }];
      await writeFile(join(h.env.configDir, "settings.json"), JSON.stringify({ hooks: { PreToolUse: hook } }));
      const seen: string[] = [];
      const result = await h.agent.run("GO", {
        cwd: work,
        policy: { sandbox: "read_only" },
        hooks: { beforeToolCall: ({ toolName }) => void seen.push(toolName) },
      });
      expect(result.text).toBe("isError=true");
      expect(JSON.stringify(h.server.requests.at(-1)!.body)).not.toContain("SECRET-OUTSIDE");
      expect(existsSync(marker)).toBe(false);
      expect(seen).toEqual(["Read"]);
    } finally {
      await rm(outside, { recursive: true, force: true });
    }
  });

  it("userSettings: false with workspaceSettings: true loads the workspace's settings but not the user's", async () => {
    const userMarker = join(work, "user-hook-ran");
    const workspaceMarker = join(work, "workspace-hook-ran");
    h = await harness([{ when: whenUserSays("hello"), reply: { text: "hi" } }], { userSettings: false, workspaceSettings: true });
    await userSettingsFile(h.env.configDir, userMarker);
    await mkdir(join(work, ".claude"));
    const hook = [{ hooks: [{ type: "command", command: `touch ${workspaceMarker}` }] }];
    await writeFile(join(work, ".claude", "settings.json"), JSON.stringify({ hooks: { UserPromptSubmit: hook } }));
    expect((await h.agent.run("hello", { cwd: work })).text).toBe("hi");
    expect(existsSync(workspaceMarker)).toBe(true);
    expect(existsSync(userMarker)).toBe(false);
  });
});
