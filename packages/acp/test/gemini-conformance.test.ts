import { existsSync } from "node:fs";
import { describeDriverConformance, type DriverFixture } from "@adaptor/driver/testing";
import { geminiTestEnv, startGeminiServer, type GeminiServer, type GeminiTestEnv } from "@adaptor/testkit";
import { gemini } from "../src/index.js";
import { GEMINI_TEST_MODEL } from "./support.js";

// The public driver conformance kit against the gemini preset on the real gemini-cli 0.61.0.

interface GeminiFixture extends DriverFixture {
  readonly server: GeminiServer;
  readonly env: GeminiTestEnv;
}

const makeDriver = async (): Promise<GeminiFixture> => {
  const server = await startGeminiServer();
  const env = await geminiTestEnv({ server });
  const driver = gemini({ cwd: env.workDir, env: env.env, inheritEnv: false, model: GEMINI_TEST_MODEL });
  return {
    driver,
    server,
    env,
    cleanup: async () => {
      await server.close();
      await env.cleanup();
    },
  };
};

describeDriverConformance<GeminiFixture>("gemini over ACP (real binary)", {
  makeDriver,
  scripted: {
    text: () => ({ request: { prompt: "hello conformance" }, expectText: "Fake reply." }),
    toolApproval: (f) => ({
      request: { prompt: `WRITE_FILE ${f.env.workDir}/conformance.txt` },
      toolRan: () => existsSync(`${f.env.workDir}/conformance.txt`),
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
  concurrent: true,
  makeForeignDriver: () => gemini({ extraArgs: ["--acp"] }),
  makeMissingDriver: () => gemini({ command: "/nonexistent/bin/gemini" }),
  cancelAfterMs: 4000,
  // 1.2 pairs each sandbox level with a permission mode; the driver refuses `ask` / `auto_*` with the
  // autoEdit and yolo modes (gemini acts unasked there). Each value alone is proven in gemini-policy.test.ts.
  skip: { "1.2": "a permission mode with workspace_write or unrestricted is refused (gemini acts unasked in autoEdit / yolo)" },
});
