import { existsSync } from "node:fs";
import { appendFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { MemoryThreadStore } from "@adaptor/threadstore";
import { Agent, type ApprovalRequest, type RunOptions } from "adaptor";
import { codexHarness, type CodexHarness } from "./support.js";

// codex keeps a thread's approval policy and sandbox across its turns and restores them on
// `thread/resume`: a turn of a thread must still run under what its own options say, as the same
// turn on a new thread would, whatever the thread's earlier turns ran under (real binary).

let h: CodexHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/** A thread host on the harness's driver, and the asks each run made (a run's `onApproval` answers with `answer`). */
function threadHost(harness: CodexHarness): {
  agent: Agent;
  run: (
    key: string,
    file: string,
    options?: RunOptions,
    answer?: "approve" | "deny",
  ) => Promise<{ asks: number; landed: boolean; detail?: string }>;
} {
  const agent = new Agent(harness.driver, { threadStore: new MemoryThreadStore() });
  const run = async (key: string, file: string, options: RunOptions = {}, answer: "approve" | "deny" = "deny") => {
    let asks = 0;
    const onApproval = (request: ApprovalRequest) => {
      asks++;
      return answer === "approve" ? request.approve() : request.deny("not asked for");
    };
    const result = await agent.thread(key).run(`SHELL_CMD echo x > ${file}`, { ...options, onApproval });
    const detail = result.enforcement.find((entry) => entry.field === "approvals.permission")?.detail;
    return { asks, landed: existsSync(join(harness.env.workDir, file)), ...(detail ? { detail } : {}) };
  };
  return { agent, run };
}

const ASK = { policy: { approvals: { permission: "ask" } } } as const;

describe("codex thread turn after an ask turn (real binary)", () => {
  it.each([
    ["a folder codex's config does not list", false, false],
    ["a trusted folder", true, true],
  ] as const)("%s: a turn with no policy runs as on a new thread, asking nothing (write lands: %s)", async (_folder, trusted, lands) => {
    h = await codexHarness();
    if (trusted) await appendFile(h.env.configPath, `\n[projects.${JSON.stringify(h.env.workDir)}]\ntrust_level = "trusted"\n`);
    const { agent, run } = threadHost(h);
    const fresh = await run("fresh", "fresh.txt");
    const asked = await run("t", "asked.txt", ASK, "approve");
    const after = await run("t", "after.txt");
    await agent.close();
    expect(fresh).toEqual({ asks: 0, landed: lands });
    expect(asked).toMatchObject({ asks: 1, landed: true });
    expect(after).toEqual({ asks: 0, landed: lands });
  });

  it("auto_approve with no sandbox after an ask turn is confined by codex's own read-only sandbox, and the report names it", async () => {
    h = await codexHarness();
    const { agent, run } = threadHost(h);
    const policy = { policy: { approvals: { permission: "auto_approve" } } } as const;
    const fresh = await run("fresh", "fresh.txt", policy);
    await run("t", "asked.txt", ASK, "approve");
    const after = await run("t", "after.txt", policy);
    await agent.close();
    for (const turn of [fresh, after]) {
      expect(turn).toMatchObject({ asks: 0, landed: false });
      expect(turn.detail).toContain("sandbox read-only (codex's own for this working directory");
    }
  });

  it("read_only, then ask, then read_only: only the ask turn writes, and only it asks", async () => {
    h = await codexHarness();
    const { agent, run } = threadHost(h);
    const confined = { policy: { sandbox: "read_only" } } as const;
    const turns = [await run("t", "one.txt", confined), await run("t", "two.txt", ASK, "approve"), await run("t", "three.txt", confined)];
    await agent.close();
    expect(turns.map(({ asks, landed }) => ({ asks, landed }))).toEqual([
      { asks: 0, landed: false },
      { asks: 1, landed: true },
      { asks: 0, landed: false },
    ]);
  });

  it("inherit after an ask turn is checked against codex's own approval policy for the folder, not the ask turn's", async () => {
    h = await codexHarness();
    const { agent, run } = threadHost(h);
    await run("t", "asked.txt", ASK, "approve");
    // With codex's own policy (on-request for an unlisted folder) the pair is refused before the turn,
    // as on a new thread; the ask turn's untrusted must not be what is checked.
    const refused = run("t", "inherit.txt", { policy: { sandbox: "read_only", approvals: { permission: "inherit" } } });
    await expect(refused).rejects.toThrow(/codex's own approval policy is "on-request"/);
    await agent.close();
    expect(existsSync(join(h.env.workDir, "inherit.txt"))).toBe(false);
  });
});

describe("codex exec thread turn after an unrestricted turn (real binary)", () => {
  it("a turn with no policy runs in codex's own sandbox, as on a new thread: the write does not land", async () => {
    h = await codexHarness({ config: { transport: "exec" } });
    const { agent, run } = threadHost(h);
    const first = await run("t", "one.txt", { policy: { sandbox: "unrestricted" } });
    const after = await run("t", "two.txt");
    await agent.close();
    expect([first.landed, after.landed]).toEqual([true, false]);
  });
});
