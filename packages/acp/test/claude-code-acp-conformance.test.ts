import { describeDriverConformance } from "@adaptor/driver/testing";
import { acp } from "../src/index.js";
import { anthropicConformanceScripts, anthropicFixture, claudeAcp, type AnthropicFixture } from "./support.js";

// The public driver conformance kit against acp() running Claude Code's ACP adapter (0.16.2).

describeDriverConformance<AnthropicFixture>("claude-code-acp through acp() (real adapter)", {
  makeDriver: anthropicFixture((env) => claudeAcp(env)),
  scripted: anthropicConformanceScripts<AnthropicFixture>(),
  concurrent: true,
  makeForeignDriver: () => acp({ command: "" }),
  makeMissingDriver: () => acp({ command: "/nonexistent/bin/claude-code-acp" }),
  cancelAfterMs: 3000,
});
