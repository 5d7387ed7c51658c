import { spawn } from "node:child_process";
import { once } from "node:events";
import { appendFile, readFile, writeFile } from "node:fs/promises";
import { createInterface } from "node:readline";
import { afterEach, describe, expect, it } from "vitest";
import type { JsonRpcConnection } from "@adaptor/driver/kit";
import { codexOwnSettings } from "../src/app-server/codex-own-settings.js";
import { defaultCodexCommand } from "../src/command.js";
import { sandboxPolicyName } from "../src/policy.js";
import type { ThreadStartResponse } from "../src/protocol/generated/v2/ThreadStartResponse.js";
import { codexHarness, type CodexHarness } from "./support.js";

// What codex 0.171.0 gives a new thread of its own (no approval policy or sandbox in thread/start),
// against what the driver derives from `config/read` to send a resumed thread the same.

let h: CodexHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/** A `codex app-server` in the harness's working directory, initialized; `request` answers a method's result (or `{ error }`). */
async function appServer(
  harness: CodexHarness,
): Promise<{ request: (method: string, params: unknown) => Promise<unknown>; close: () => Promise<void> }> {
  const child = spawn(defaultCodexCommand(), ["app-server"], { cwd: harness.env.workDir, env: harness.env.env, stdio: "pipe" });
  const exited = once(child, "exit");
  const answers = new Map<number, (result: unknown) => void>();
  let nextId = 0;
  createInterface({ input: child.stdout }).on("line", (line) => {
    const message = JSON.parse(line) as { id?: number; method?: string; result?: unknown; error?: unknown };
    if (message.method === undefined && message.id !== undefined) answers.get(message.id)?.(message.result ?? { error: message.error });
  });
  const request = (method: string, params: unknown): Promise<unknown> =>
    new Promise((resolve) => {
      const id = ++nextId;
      answers.set(id, resolve);
      child.stdin.write(`${JSON.stringify({ id, method, params })}\n`);
    });
  await request("initialize", { clientInfo: { name: "adaptor-test", title: null, version: "0" } });
  child.stdin.write(`${JSON.stringify({ method: "initialized" })}\n`);
  return {
    request,
    async close() {
      child.stdin.end();
      child.kill();
      await exited;
    },
  };
}

describe("codex's own approval policy and sandbox for a new thread (real binary)", () => {
  it.each([
    ["a folder the config does not list", "", "", { approvalPolicy: "on-request", sandbox: "read-only" }],
    ["a trusted folder", "", "trusted", { approvalPolicy: "on-request", sandbox: "workspace-write" }],
    ["an untrusted folder", "", "untrusted", { approvalPolicy: "untrusted", sandbox: "workspace-write" }],
    ["config sandbox_mode", 'sandbox_mode = "danger-full-access"\n', "", { approvalPolicy: "on-request", sandbox: "danger-full-access" }],
    [
      "config approval_policy, untrusted folder",
      'approval_policy = "never"\n',
      "untrusted",
      { approvalPolicy: "never", sandbox: "workspace-write" },
    ],
  ] as const)("%s: what config/read implies is what thread/start applies", async (_case, topLevel, trust, expected) => {
    h = await codexHarness();
    // A top-level key goes before the config's first table.
    if (topLevel) await writeFile(h.env.configPath, `${topLevel}${await readFile(h.env.configPath, "utf8")}`);
    if (trust) await appendFile(h.env.configPath, `\n[projects.${JSON.stringify(h.env.workDir)}]\ntrust_level = "${trust}"\n`);
    const server = await appServer(h);
    try {
      const derived = await codexOwnSettings({ request: server.request } as unknown as JsonRpcConnection, h.env.workDir);
      const started = (await server.request("thread/start", { cwd: h.env.workDir })) as ThreadStartResponse;
      expect(derived).toEqual(expected);
      expect({ approvalPolicy: started.approvalPolicy, sandbox: sandboxPolicyName(started.sandbox) }).toEqual(expected);
    } finally {
      await server.close();
    }
  });
});
