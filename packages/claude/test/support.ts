import { claudeTestEnv, startAnthropicServer, type AnthropicServer, type ClaudeTestEnv, type ScriptRule } from "@adaptor/testkit";
import { claude, type ClaudeConfig, type ClaudeDriver } from "../src/index.js";

/** A scripted server, an isolated claude environment and a driver on the real binary. */
export interface DriverHarness {
  readonly server: AnthropicServer;
  readonly env: ClaudeTestEnv;
  readonly driver: ClaudeDriver;
  close(): Promise<void>;
}

/** Starts a scripted Anthropic server and an isolated claude home; `config` is merged over the defaults. */
export async function driverHarness(rules: ScriptRule[] = [], config: ClaudeConfig = {}): Promise<DriverHarness> {
  const server = await startAnthropicServer({ rules });
  const env = await claudeTestEnv({ server });
  const driver = claude({ cwd: env.workDir, env: env.env, inheritEnv: false, model: "claude-sonnet-4-5", ...config });
  return {
    server,
    env,
    driver,
    async close() {
      await driver.close();
      await server.close();
      await env.cleanup();
    },
  };
}
