import { spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { afterEach, describe, expect, it } from "vitest";
import type { AskForApproval } from "../src/protocol/generated/v2/AskForApproval.js";
import { defaultCodexCommand } from "../src/command.js";
import { codexHarness, ESCALATE_RULE, type CodexHarness } from "./support.js";

// Why the driver refuses sandbox read_only / workspace_write with permission `ask`: what the pinned
// codex (0.171.0) does with each approval policy under its read-only sandbox, spoken to directly
// over app-server (the driver pins `untrusted` for ask and cannot send the others). No policy both
// asks the host before each sandboxed command and keeps a command the host approved confined.

let h: CodexHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

interface Turn {
  /** The `item/commandExecution/requestApproval` params codex sent, in order (each answered `accept`). */
  readonly approvals: Record<string, unknown>[];
  /** Whether `f.txt` exists in the workspace after the turn. */
  readonly wrote: boolean;
}

/** One turn of `prompt` on a fresh `codex app-server` with `sandbox` and `approvalPolicy`, every approval accepted. */
async function turnWith(harness: CodexHarness, approvalPolicy: AskForApproval, prompt: string): Promise<Turn> {
  const child = spawn(defaultCodexCommand(), ["app-server"], { cwd: harness.env.workDir, env: harness.env.env, stdio: "pipe" });
  const exited = once(child, "exit");
  const approvals: Record<string, unknown>[] = [];
  const answers = new Map<number, (result: unknown) => void>();
  let nextId = 0;
  let completed!: () => void;
  const done = new Promise<void>((resolve) => (completed = resolve));
  const send = (message: unknown): boolean => child.stdin.write(`${JSON.stringify(message)}\n`);
  const request = (method: string, params: unknown): Promise<unknown> =>
    new Promise((resolve) => {
      const id = ++nextId;
      answers.set(id, resolve);
      send({ id, method, params });
    });
  createInterface({ input: child.stdout }).on("line", (line) => {
    const message = JSON.parse(line) as {
      id?: number;
      method?: string;
      params?: Record<string, unknown>;
      result?: unknown;
      error?: unknown;
    };
    if (message.method === undefined && message.id !== undefined) answers.get(message.id)?.(message.result ?? { error: message.error });
    else if (message.method === "item/commandExecution/requestApproval") {
      approvals.push(message.params ?? {});
      send({ id: message.id, result: { decision: "accept" } });
    } else if (message.method === "turn/completed") completed();
  });
  try {
    // The granular policy is part of codex's experimental API: the client must opt in to send it.
    const experimentalApi = typeof approvalPolicy === "object";
    await request("initialize", { clientInfo: { name: "adaptor-test", title: null, version: "0" }, capabilities: { experimentalApi } });
    send({ method: "initialized" });
    const started = (await request("thread/start", { cwd: harness.env.workDir, sandbox: "read-only", approvalPolicy })) as {
      thread?: { id: string };
      error?: unknown;
    };
    if (!started.thread) throw new Error(`thread/start refused: ${JSON.stringify(started.error)}`);
    await request("turn/start", { threadId: started.thread.id, input: [{ type: "text", text: prompt, text_elements: [] }] });
    await done;
  } finally {
    child.stdin.end();
    child.kill();
    await exited;
  }
  return { approvals, wrote: existsSync(join(harness.env.workDir, "f.txt")) };
}

const GRANULAR = { rules: true, skill_approval: true, request_permissions: true, mcp_elicitations: true };

describe("codex 0.171.0 approval policies under its read-only sandbox (real binary, app-server)", () => {
  it("untrusted: a command the model runs with escalated permissions is asked like any other (no reason), and accepted it writes", async () => {
    h = await codexHarness({ rules: [ESCALATE_RULE] });
    const turn = await turnWith(h, "untrusted", "ESCALATE_CMD echo x > f.txt");
    expect(turn.approvals).toHaveLength(1);
    expect(turn.approvals[0]).toMatchObject({ kind: "command", command: "/bin/bash -lc 'echo x > f.txt'" });
    expect(turn.approvals[0]?.reason ?? null).toBeNull();
    expect(turn.wrote).toBe(true);
  });

  it("on-request: an ordinary write is not asked about (it runs confined and fails)", async () => {
    h = await codexHarness();
    const turn = await turnWith(h, "on-request", "SHELL_CMD echo x > f.txt");
    expect(turn).toEqual({ approvals: [], wrote: false });
  });

  it("granular without sandbox approval: nothing is asked, an escalated write is rejected, nothing lands", async () => {
    h = await codexHarness({ rules: [ESCALATE_RULE] });
    const policy: AskForApproval = { granular: { ...GRANULAR, sandbox_approval: false } };
    expect(await turnWith(h, policy, "SHELL_CMD echo x > f.txt")).toEqual({ approvals: [], wrote: false });
    expect(await turnWith(h, policy, "ESCALATE_CMD echo x > f.txt")).toEqual({ approvals: [], wrote: false });
  });

  it("granular with sandbox approval: no ask before a confined command; an escalated write is asked (no reason) and, accepted, lands", async () => {
    h = await codexHarness({ rules: [ESCALATE_RULE] });
    const policy: AskForApproval = { granular: { ...GRANULAR, sandbox_approval: true } };
    const ordinary = await turnWith(h, policy, "SHELL_CMD echo x > f.txt");
    // Asked only when codex saw the confined attempt fail (not every time), and only to retry it unconfined.
    expect(ordinary.approvals.map((a) => a.reason)).toEqual(ordinary.approvals.map(() => "command failed; retry without sandbox?"));
    expect(ordinary.wrote).toBe(ordinary.approvals.length > 0);
    await h.close();
    h = await codexHarness({ rules: [ESCALATE_RULE] });
    const escalated = await turnWith(h, policy, "ESCALATE_CMD echo x > f.txt");
    expect(escalated.approvals).toHaveLength(1);
    expect(escalated.approvals[0]?.reason ?? null).toBeNull();
    expect(escalated.wrote).toBe(true);
  });
});
