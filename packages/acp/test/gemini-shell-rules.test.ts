import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { ApprovalRequest } from "adaptor";
import { collect, geminiHarness, type GeminiHarness } from "./support.js";

// gemini-cli 0.61.0 sends a shell call with no rawInput: its command is the call's title. Approval
// rules and suggestions by command work on it all the same.

let h: GeminiHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/** A harness whose model runs `commands()` as run_shell_command calls, one per model turn, then answers `done`. */
async function shells(commands: () => readonly string[]): Promise<GeminiHarness> {
  let step = 0;
  return geminiHarness([
    {
      when: (view) => view.method === "stream",
      reply: () => {
        const command = commands()[step++];
        return command === undefined ? { text: "done" } : { functionCall: { name: "run_shell_command", args: { command } } };
      },
    },
  ]);
}

describe("approval rules by command on gemini-cli's shell calls", () => {
  it.each([
    ["commandPrefix", (_keep: string) => ({ commandPrefix: "rm" })],
    ["exact command", (keep: string) => ({ command: `rm -f ${keep}` })],
  ])("a deny rule by %s stops rm before it runs, without asking the handler", async (_name, condition) => {
    let keep = "";
    h = await shells(() => [`rm -f ${keep}`]);
    keep = join(h.env.workDir, "keep.txt");
    writeFileSync(keep, "keep\n");
    const asked: string[] = [];
    const stream = h.agent.stream("go", {
      policy: {
        approvals: { permission: "ask", rules: [{ toolName: "run_shell_command", ...condition(keep), outcome: "deny", reason: "no rm" }] },
      },
      onApproval: (r) => (asked.push(r.title), r.approve()),
    });
    const events = await collect(stream);
    await stream.result();
    expect(existsSync(keep)).toBe(true);
    expect(asked).toEqual([]);
    const ended = events.find((e) => e.type === "tool-call" && e.phase === "end");
    expect(ended).toMatchObject({ name: "run_shell_command", input: { command: `rm -f ${keep}`, cwd: h.env.workDir } });
  });

  it("a shell ask suggests its exact command: remembering it lets the next, other command be asked", async () => {
    let dir = "";
    h = await shells(() => [`touch ${dir}/first`, `rm -f ${dir}/keep.txt`]);
    dir = h.env.workDir;
    writeFileSync(join(dir, "keep.txt"), "keep\n");
    const requests: ApprovalRequest[] = [];
    const stream = h.agent.stream("go", {
      policy: { approvals: { permission: "ask" } },
      onApproval: (r) => {
        requests.push(r);
        if (requests.length === 1) r.approve({ remember: r.suggestions[0]! });
        else r.deny("not this one");
      },
    });
    await collect(stream);
    await stream.result();
    expect(requests.map((r) => [r.title, r.suggestions])).toEqual([
      [`touch ${dir}/first`, [{ toolName: "run_shell_command", command: `touch ${dir}/first` }]],
      [`rm -f ${dir}/keep.txt`, [{ toolName: "run_shell_command", command: `rm -f ${dir}/keep.txt` }]],
    ]);
    expect(existsSync(join(dir, "first"))).toBe(true);
    expect(existsSync(join(dir, "keep.txt"))).toBe(true);
  });
});
