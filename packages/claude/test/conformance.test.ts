import { existsSync } from "node:fs";
import { describeDriverConformance, type DriverFixture } from "@adaptor/driver/testing";
import { whenUserSays } from "@adaptor/testkit";
import { claude } from "../src/index.js";
import { driverHarness, type DriverHarness } from "./support.js";

// The public driver conformance kit against the Claude driver on the real binary (issue 7 §2),
// through this package's own test harness (scripted Anthropic server, isolated config dir).

interface ClaudeFixture extends DriverFixture {
  readonly harness: DriverHarness;
}

const makeDriver = async (): Promise<ClaudeFixture> => {
  const h = await driverHarness([
    // --json-schema offers the model a StructuredOutput tool; its input is the value (cli-protocols.md §7).
    { when: whenUserSays("so-conformance"), reply: { toolUse: { name: "StructuredOutput", input: { answer: "forty-two" } } } },
  ]);
  return { driver: h.driver, harness: h, cleanup: () => h.close() };
};

describeDriverConformance<ClaudeFixture>("claude (real binary)", {
  makeDriver,
  scripted: {
    text: () => ({ request: { prompt: "hello conformance" }, expectText: "Fake reply." }),
    followUp: () => ({ request: { prompt: "follow up" }, expectText: "Fake reply." }),
    toolApproval: (f) => ({
      request: { prompt: `WRITE_FILE ${f.harness.env.workDir}/conformance.txt` },
      toolRan: () => existsSync(`${f.harness.env.workDir}/conformance.txt`),
    }),
    slow: () => ({ request: { prompt: "SLOW_MS 30000 slow conformance" } }),
    failing: () => ({ request: { prompt: "HTTP_ERROR 400" }, expectMessage: "Scripted HTTP_ERROR 400" }),
    structured: () => ({
      request: {
        prompt: "so-conformance please",
        outputSchema: { type: "object", properties: { answer: { type: "string" } }, required: ["answer"] },
      },
      expectValue: { answer: "forty-two" },
    }),
  },
  concurrent: true,
  makeForeignDriver: () => claude({ extraArgs: ["--print"] }),
  makeMissingDriver: () => claude({ command: "/nonexistent/bin/claude" }),
  cancelAfterMs: 2500,
});
