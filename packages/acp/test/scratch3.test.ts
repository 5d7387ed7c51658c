import { join } from "node:path";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { it } from "vitest";
import { claudeTestEnv, startAnthropicServer } from "@adaptor/testkit";
import { Agent } from "adaptor";
import { acp } from "../src/index.js";
import { collect } from "./support.js";

const ENTRY = fileURLToPath(new URL("../node_modules/@zed-industries/claude-agent-acp/dist/index.js", import.meta.url));
it("scratch", async () => {
  const server = await startAnthropicServer({ rules: [] });
  const env = await claudeTestEnv({ server });
  const f = (n: string) => join(env.workDir, n);
  const mk = (extra: object) =>
    new Agent(
      acp({
        command: process.execPath,
        args: [ENTRY],
        cwd: env.workDir,
        inheritEnv: false,
        env: env.env,
        askMode: "default",
        mcpTransports: ["stdio"],
        ...extra,
      }),
    );
  const cases: [string, object, object][] = [
    [`SHELL_CMD touch ${f("t.txt")}`, { approvals: { permission: "ask" } }, {}],
    [`WRITE_FILE ${f("plan.txt")}`, { sandbox: "read_only" }, { sandboxModes: { read_only: "plan" } }],
    [`WRITE_FILE ${f("dontask.txt")}`, { sandbox: "read_only" }, { sandboxModes: { read_only: "dontAsk" } }],
    [`WRITE_FILE ${f("gate.txt")}`, { sandbox: "read_only" }, {}],
  ];
  for (const [prompt, policy, extra] of cases) {
    const agent = mk(extra);
    const s = agent.stream(prompt, {
      policy: policy as never,
      onApproval: (r) => {
        console.log("ASK", r.toolName, JSON.stringify(r.input).slice(0, 200), JSON.stringify(r.details).slice(0, 300));
        r.approve();
      },
    });
    const ev = await collect(s);
    for (const e of ev)
      if (e.type !== "text-delta" && !(e.type === "process" && e.kind === "stderr"))
        console.log(prompt.slice(0, 12), JSON.stringify(e).slice(0, 300));
    const r = await s.result().catch((e) => e);
    console.log(
      "RESULT",
      r.text ?? r,
      JSON.stringify(r.enforcement),
      ["t.txt", "plan.txt", "dontask.txt", "gate.txt"].map((n) => existsSync(f(n))),
    );
    await agent.close();
  }
  await server.close();
  await env.cleanup();
}, 240000);
