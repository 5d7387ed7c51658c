import { afterEach, describe, expect, it } from "vitest";
import { runDriver } from "@adaptor/driver/testing";
import { processGone } from "@adaptor/driver/kit";
import { geminiTestEnv, startGeminiServer, whenGeminiPromptSays, type GeminiServer, type GeminiTestEnv } from "@adaptor/testkit";
import { gemini } from "../src/index.js";
import { GEMINI_TEST_MODEL } from "./support.js";

// A run stopped while its ACP agent was being started (the host's cancel, a deadline) reaches the
// turn with its signal already aborted: no abort event follows, yet the run rejects with the stop's
// reason, no model request goes out and the process is gone (gemini-cli, real binary).

let server: GeminiServer | undefined;
let env: GeminiTestEnv | undefined;
afterEach(async () => {
  await server?.close();
  await env?.cleanup();
  server = env = undefined;
});

describe("an ACP run stopped before its prompt (real binary)", { timeout: 60_000 }, () => {
  it("rejects with the stop's reason, no model request goes out and the process is gone", async () => {
    server = await startGeminiServer({ rules: [{ when: whenGeminiPromptSays("echo it"), reply: { text: "done" } }] });
    env = await geminiTestEnv({ server });
    const driver = gemini({ cwd: env.workDir, env: env.env, inheritEnv: false, model: GEMINI_TEST_MODEL });
    const run = await runDriver(
      driver,
      { prompt: "echo it", policy: { approvals: { permission: "auto_approve" } } },
      // Stopped as the process starts: the driver has not run the turn yet.
      { cancelWhen: (recording) => recording.pids().length > 0 },
    );
    expect(run.error).toBe(run.abortReason);
    expect(server.requests).toHaveLength(0);
    const [pid] = run.recording.pids();
    expect(pid !== undefined && processGone(pid)).toBe(true);
  });
});
