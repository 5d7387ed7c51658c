import { join } from "node:path";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { it } from "vitest";
import { startChatCompletionsServer, whenChatUserSays } from "@adaptor/testkit";
import { Agent } from "adaptor";
import { acp } from "../src/index.js";
import { collect, isolatedHome } from "./support.js";

const BIN = fileURLToPath(new URL("../node_modules/opencode-ai/bin/opencode.exe", import.meta.url));
it("scratch", async () => {
  const home = await isolatedHome();
  const f1 = join(home.workDir, "t.txt"),
    f2 = join(home.workDir, "w.txt");
  const f3 = join(home.workDir, "ro.txt");
  const server = await startChatCompletionsServer({
    rules: [
      {
        when: whenChatUserSays("RUN_TOUCH"),
        reply: { toolCall: { name: "bash", arguments: { command: `touch ${f1}`, description: "touch" } } },
      },
      { when: whenChatUserSays("WRITE_RO"), reply: { toolCall: { name: "write", arguments: { filePath: f3, content: "hello\n" } } } },
      { when: whenChatUserSays("WRITE_IT"), reply: { toolCall: { name: "write", arguments: { filePath: f2, content: "hello\n" } } } },
      { when: whenChatUserSays("say hello"), reply: { text: "Hello there." } },
    ],
  });
  const config = {
    provider: {
      scripted: {
        npm: "@ai-sdk/openai-compatible",
        name: "Scripted",
        options: { baseURL: `${server.url}/v1`, apiKey: "sk-test" },
        models: { "test-model": { name: "Test model" } },
      },
    },
    model: "scripted/test-model",
    small_model: "scripted/test-model",
    autoupdate: false,
    share: "disabled",
    agent: {
      ask: { mode: "primary", description: "asks", permission: { edit: "ask", bash: "ask", webfetch: "ask" } },
      readonly: { mode: "primary", description: "ro", permission: { edit: "deny", bash: "deny", webfetch: "deny" } },
    },
  };
  const env = {
    ...home.env,
    OPENCODE_CONFIG_CONTENT: JSON.stringify(config),
    OPENCODE_DISABLE_AUTOUPDATE: "1",
    OPENCODE_DISABLE_MODELS_FETCH: "1",
    OPENCODE_DISABLE_LSP_DOWNLOAD: "1",
    OPENCODE_DISABLE_DEFAULT_PLUGINS: "1",
    OPENCODE_DISABLE_SHARE: "1",
  };
  const agent = new Agent(
    acp({
      command: BIN,
      args: ["acp"],
      cwd: home.workDir,
      inheritEnv: false,
      env,
      sandboxModes: { read_only: "readonly" },
      askMode: "ask",
      mcpTransports: ["stdio"],
    }),
  );
  for (const [prompt, policy] of [
    ["say hello", {}],
    ["RUN_TOUCH", { approvals: { permission: "ask" } }],
    ["WRITE_RO", { sandbox: "read_only" }],
    ["WRITE_IT", {}],
  ] as const) {
    const s = agent.stream(prompt, {
      policy: policy as never,
      onApproval: (r) => {
        console.log("ASK", r.toolName, JSON.stringify(r.input).slice(0, 200), JSON.stringify(r.details).slice(0, 300));
        r.deny("no");
      },
    });
    const ev = await collect(s);
    for (const e of ev)
      if (e.type !== "text-delta" && !(e.type === "process" && e.kind === "stderr")) console.log(prompt, JSON.stringify(e).slice(0, 300));
    const r = await s.result().catch((e) => e);
    console.log("RESULT", r.text ?? r, JSON.stringify(r.enforcement), existsSync(f1), existsSync(f2), existsSync(f3));
  }
  await agent.close();
  await server.close();
  for (const q of server.requests) console.log("REQ", q.method, q.path, q.rule, q.view?.toolNames.join(","));
}, 180000);
