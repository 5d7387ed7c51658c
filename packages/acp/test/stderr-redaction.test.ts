import { describe, expect, it } from "vitest";
import { runDriver } from "@adaptor/driver/testing";
import { hostileAcp, text, type HostileScenario } from "./hostile-agent/hostile.js";

const done = { respond: { stopReason: "end_turn" } };

describe("the agent's stderr (hostile agent)", () => {
  it("a credential the run hands the agent (its environment's, a stdio MCP server's) reads [redacted] in stderr process events, also split over two writes, and in raw stderr", async () => {
    const key = "acpEnvKey-QWERTY123456";
    const token = "mcpTok-ABCDEFGH12345";
    const scenario: HostileScenario = {
      // The agent repeats its session/new params (the MCP servers' env included) on stderr.
      "session/new": [{ stderrParams: true }, { respond: { sessionId: "hostile-session" } }],
      "session/prompt": [[{ stderr: `using key ${key.slice(0, 10)}` }, { stderr: `${key.slice(10)} now\n` }, text("ok"), done]],
    };
    const driver = hostileAcp(scenario, { env: { HOSTILE_ACP_SCENARIO: JSON.stringify(scenario), PROVIDER_API_KEY: key } });
    try {
      const run = await runDriver(driver, {
        prompt: "hi",
        mcpServers: [{ name: "fx", transport: "stdio", command: process.execPath, args: ["-e", ""], env: { FX_API_TOKEN: token } }],
      });
      expect(run.error).toBeUndefined();
      const stderr = run.recording
        .ofType("process")
        .flatMap((p) => (p.kind === "stderr" ? [p.text ?? ""] : []))
        .join("");
      expect(stderr).toContain('"value":"[redacted]"');
      // One marker when the rest came before the held line was handed on, two when after (cut there).
      expect(stderr).toMatch(/using key (\[redacted\]){1,2} now\n/);
      for (const secret of [key, token]) {
        for (const piece of [secret.slice(0, 8), secret.slice(-8)]) {
          expect(stderr).not.toContain(piece);
          expect(run.response?.raw?.stderr).not.toContain(piece);
        }
      }
    } finally {
      await driver.close();
    }
  });
});
