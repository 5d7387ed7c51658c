import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { ScriptRule } from "@adaptor/testkit";
import type { ApprovalHandler, ApprovalRequest } from "adaptor";
import { harness, type Harness } from "./support.js";

// What the pinned CLI allows by itself without asking the host (default permission mode), and the
// `askForEveryTool` config that makes it ask for those calls too, on the real claude binary.

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

function rules(workDir: string): ScriptRule[] {
  return [
    {
      when: (view) => view.lastUserText.includes("read-inside"),
      reply: { toolUse: { name: "Read", input: { file_path: join(workDir, "notes.txt") } } },
    },
    {
      when: (view) => view.lastUserText.includes("list-files"),
      reply: { toolUse: { name: "Bash", input: { command: "ls", description: "List files" } } },
    },
  ];
}

function recorder(decide: (request: ApprovalRequest) => void): { handler: ApprovalHandler; asked: string[] } {
  const asked: string[] = [];
  const handler: ApprovalHandler = vi.fn((request: ApprovalRequest) => {
    asked.push(request.toolName ?? "");
    decide(request);
  });
  return { handler, asked };
}

describe("tool calls the CLI allows by itself, and askForEveryTool (real binary)", { timeout: 180_000 }, () => {
  it("default: a read inside the working directory and a read-only `ls` run without asking the host", async () => {
    const { handler, asked } = recorder((request) => request.approve());
    h = await harnessWithRules(handler);
    const read = await h.agent.run("read-inside please");
    expect(read.text).toContain("secret notes");
    const list = await h.agent.run("list-files please");
    expect(list.text).toContain("notes.txt");
    expect(asked).toEqual([]);
  });

  it("askForEveryTool: the same read and `ls` are approvals; a denied read never reaches the model", async () => {
    const { handler, asked } = recorder((request) => (request.toolName === "Read" ? request.deny("not this file") : request.approve()));
    h = await harnessWithRules(handler, true);
    const read = await h.agent.run("read-inside please");
    expect(read.text).not.toContain("secret notes");
    expect(h.server.requests.some((request) => JSON.stringify(request.body).includes("secret notes"))).toBe(false);
    const list = await h.agent.run("list-files please");
    expect(list.text).toContain("notes.txt");
    expect(asked).toEqual(["Read", "Bash"]);
  });
});

/** A harness whose rules know its workspace, with `notes.txt` in it. */
async function harnessWithRules(onApproval: ApprovalHandler, askForEveryTool = false): Promise<Harness> {
  let workDir = "";
  const lazy: ScriptRule[] = [
    {
      when: (view) => rules(workDir).some((rule) => rule.when(view)),
      reply: (view) => {
        const rule = rules(workDir).find((candidate) => candidate.when(view))!;
        return typeof rule.reply === "function" ? rule.reply(view) : rule.reply;
      },
    },
  ];
  const harnessed = await harness(lazy, askForEveryTool ? { askForEveryTool } : {}, {
    onApproval,
    policy: { approvals: { timeoutMs: 60_000 } },
  });
  workDir = harnessed.env.workDir;
  writeFileSync(join(workDir, "notes.txt"), "secret notes\n");
  return harnessed;
}
