import { describeDriverConformance } from "@adaptor/driver/testing";
import { claudeAgentAcp } from "../src/index.js";
import { anthropicConformanceScripts, anthropicFixture, type AnthropicFixture } from "./support.js";

// The public driver conformance kit against claudeAgentAcp() on the real adapter (0.23.1).

describeDriverConformance<AnthropicFixture>("claudeAgentAcp() (real claude-agent-acp)", {
  makeDriver: anthropicFixture((env) => claudeAgentAcp({ cwd: env.workDir, env: env.env, inheritEnv: false })),
  scripted: anthropicConformanceScripts<AnthropicFixture>(),
  makeForeignDriver: () => claudeAgentAcp({ command: "" }),
  makeMissingDriver: () => claudeAgentAcp({ command: "/nonexistent/bin/claude-agent-acp" }),
  cancelAfterMs: 3000,
});
