import { qwen } from "../src/index.js";
import { describeChatAgentConformance } from "./chat-agent.js";
import { QWEN_RULES, qwenEnv } from "./qwen.test.js";

// The public driver conformance kit against qwen() on the real qwen-code 0.24.4.

describeChatAgentConformance("qwen() (real qwen-code)", {
  driverOf: (home, server) => qwen({ cwd: home.workDir, inheritEnv: false, env: qwenEnv(home, server) }),
  rules: QWEN_RULES,
  makeForeignDriver: () => qwen({ command: "" }),
  makeMissingDriver: () => qwen({ command: "/nonexistent/bin/qwen" }),
  cancelAfterMs: 12_000,
  timeoutMs: 120_000,
});
