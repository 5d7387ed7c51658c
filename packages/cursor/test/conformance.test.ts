import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describeDriverConformance } from "@adaptor/driver/testing";
import { cursor } from "../src/index.js";

// The public driver conformance kit on the Cursor driver, against a fake CLI that replays the
// documented stream-json format (the real binary is not on the npm registry): protocol-tested.

const FAKE = fileURLToPath(new URL("./fake-cursor-agent.mjs", import.meta.url));

/** A driver running the fake CLI with its own chat store. */
function fixture() {
  const home = mkdtempSync(join(tmpdir(), "adaptor-fake-cursor-"));
  return {
    driver: cursor({ command: FAKE, env: { FAKE_CURSOR_HOME: home }, killGraceMs: 1000 }),
    cleanup: () => rmSync(home, { recursive: true, force: true }),
  };
}

describeDriverConformance("cursor (fake CLI)", {
  makeDriver: fixture,
  scripted: {
    text: () => ({ request: { prompt: "hello" }, expectText: "echo: hello" }),
    followUp: () => ({ request: { prompt: "more" }, expectText: "echo again: more" }),
    toolApproval: () => ({ request: { prompt: "TOOL ls", policy: { approvals: { permission: "auto_approve" } } } }),
    slow: () => ({ request: { prompt: "SLOW" } }),
    failing: () => ({ request: { prompt: "FAIL the model said no" }, expectMessage: "the model said no" }),
  },
  makeForeignDriver: () => cursor({ comand: "cursor-agent" } as never),
  makeMissingDriver: () => cursor({ command: "/nonexistent/cursor-agent" }),
});
