import { opencode } from "../src/index.js";
import { describeChatAgentConformance } from "./chat-agent.js";
import { opencodeTestConfig } from "./opencode-env.js";
import { OPENCODE_RULES } from "./opencode.test.js";

// The public driver conformance kit against opencode() on the real opencode 1.18.33.

describeChatAgentConformance("opencode() (real opencode)", {
  driverOf: (home, server) => opencode(opencodeTestConfig(home, server)),
  rules: OPENCODE_RULES,
  makeForeignDriver: () => opencode({ command: "" }),
  makeMissingDriver: () => opencode({ command: "/nonexistent/bin/opencode" }),
  cancelAfterMs: 20_000,
  // A clause's budget: 1.2 makes one real OpenCode run per declared value, one after another, after
  // the fresh database's migration; on a busy machine each can take a minute or more.
  timeoutMs: 480_000,
});
