// A workspace is not the host: settings files in the working directory (`.claude/settings.json`,
// `.claude/settings.local.json`) and allow rules in the driver's extraArgs must not decide a
// tool call the host's `ask` / `auto_deny` approvals or the `read_only` sandbox keep for the host.
// On the real claude binary (pinned 2.1.332).
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { whenToolResult, whenUserSays } from "@adaptor/testkit";
import { ErrPolicyCapabilityUnsupported, isError, type AgentEvent } from "adaptor";
import { harness, spawnedPid, type Harness } from "./support.js";

let h: Harness | undefined;
let work: string;
beforeEach(async () => {
  work = await mkdtemp(join(tmpdir(), "claude-workspace-settings-"));
});
afterEach(async () => {
  await h?.close();
  h = undefined;
  await rm(work, { recursive: true, force: true });
});

/** A model that runs a shell write when told GO, then reports whether the tool failed. */
function writeWith(file: string) {
  return [
    { when: whenUserSays("GO"), reply: { toolUse: { name: "Bash", input: { command: `echo x > ${file}`, description: "write a file" } } } },
    {
      when: whenToolResult("Bash"),
      reply: (v: { lastToolResult?: { isError: boolean } }) => ({ text: `isError=${v.lastToolResult?.isError}` }),
    },
  ];
}

describe("claude: the workspace's settings do not answer in the host's place (real binary)", () => {
  it.each([
    ["settings.json", "ask"],
    ["settings.local.json", "ask"],
    ["settings.json", "auto_deny"],
  ] as const)(
    "a workspace %s with defaultMode acceptEdits: a shell write under %s is decided by the host (denied), not run unasked",
    async (file, mode) => {
      await mkdir(join(work, ".claude"));
      await writeFile(join(work, ".claude", file), JSON.stringify({ permissions: { defaultMode: "acceptEdits" } }));
      const target = join(work, "written.txt");
      const asked: string[] = [];
      h = await harness(
        writeWith(target),
        {},
        {
          onApproval: (r) => {
            asked.push(r.title);
            r.deny("not here");
          },
        },
      );
      const result = await h.agent.run("GO", { cwd: work, policy: { approvals: { permission: mode } } });
      expect(existsSync(target)).toBe(false);
      expect(asked).toEqual(mode === "ask" ? [`Bash: echo x > ${target}`] : []);
      expect(result.text).toBe("isError=true");
      expect(result.enforcement).toContainEqual(
        expect.objectContaining({ field: "approvals.permission", value: mode, enforced: true, mechanisms: ["approval", "cli_flag"] }),
      );
    },
  );

  it.each([
    [{ approvals: { permission: "ask" as const } }, "approvals.permission", "ask", ["--allowedTools", "Bash"]],
    [{ sandbox: "read_only" as const }, "sandbox", "read_only", ["--allowed-tools=mcp__fixture"]],
  ])("extraArgs allow rules under %j are refused before a process starts", async (policy, dimension, value, extraArgs) => {
    h = await harness(writeWith(join(work, "never.txt")), { extraArgs });
    const stream = h.agent.stream("GO", { cwd: work, policy });
    const events: AgentEvent[] = [];
    for await (const event of stream) events.push(event);
    const error = await stream.result().catch((e: unknown) => e);
    expect(isError(error, ErrPolicyCapabilityUnsupported)).toBe(true);
    expect(error).toMatchObject({ driver: "claude", dimension, value });
    expect((error as Error).message).toContain(extraArgs[0]!.split("=")[0]);
    expect(spawnedPid(events)).toBeUndefined();
    expect(h.server.requests).toHaveLength(0);
  });

  it("extraArgs allow rules stay usable when the run leaves approvals to the CLI", async () => {
    const target = join(work, "allowed.txt");
    h = await harness(writeWith(target), { extraArgs: ["--allowedTools", "Bash"] });
    const result = await h.agent.run("GO", { cwd: work });
    expect(result.text).toBe("isError=false");
    expect(existsSync(target)).toBe(true);
  });
});
