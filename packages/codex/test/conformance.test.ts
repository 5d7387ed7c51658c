import { existsSync } from "node:fs";
import { join } from "node:path";
import { describeDriverConformance, type DriverFixture } from "@adaptor/driver/testing";
import { codex, type CodexConfig } from "../src/index.js";
import { codexHarness, ESCALATE_RULE, type CodexHarness } from "./support.js";

// The public driver conformance kit against the Codex driver on the real binary (issue 7 §2).

interface CodexFixture extends DriverFixture {
  readonly harness: CodexHarness;
}

const makeDriver = async (): Promise<CodexFixture> => {
  const harness = await codexHarness({ rules: [ESCALATE_RULE] });
  return { driver: harness.driver, harness, cleanup: () => harness.close() };
};

describeDriverConformance<CodexFixture>("codex (app-server, real binary)", {
  makeDriver,
  scripted: {
    text: () => ({ request: { prompt: "hello conformance" }, expectText: 'first user text: "hello conformance"' }),
    followUp: () => ({ request: { prompt: "follow up" }, expectText: /2 user message\(s\)/ }),
    toolApproval: (f) => ({
      // The model asks for escalated permissions: an approval would run it outside any sandbox.
      request: { prompt: "ESCALATE_CMD echo conformance > conformance.txt", policy: { approvals: { permission: "ask" } } },
      toolRan: () => existsSync(join(f.harness.env.workDir, "conformance.txt")),
    }),
    slow: () => ({ request: { prompt: "SLOW_MS 30000 slow conformance" } }),
    failing: () => ({ request: { prompt: "HTTP_ERROR 400" }, expectMessage: "scripted error 400" }),
    structured: () => ({
      request: {
        prompt: 'JSON_REPLY {"answer":"forty-two"}',
        outputSchema: { type: "object", properties: { answer: { type: "string" } }, required: ["answer"] },
      },
      expectValue: { answer: "forty-two" },
    }),
  },
  // 1.4: codex cannot confine a command the host approved under `ask` (it retries it outside the
  // sandbox), so the driver refuses read_only + ask before launch and the kit checks read_only with
  // auto_approve. 1.2 meets the same refusal for workspace_write + ask, and read_only + inherit
  // refused once thread/start reported codex's own approval policy (not never; the process ended,
  // no turn), and checks each value alone.
  concurrent: true,
  makeForeignDriver: () => codex({ transport: "carrier-pigeon" } as unknown as CodexConfig),
  makeMissingDriver: () => codex({ command: "/nonexistent/bin/codex" }),
  cancelAfterMs: 1200,
});
