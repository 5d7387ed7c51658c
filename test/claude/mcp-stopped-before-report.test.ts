import { describe, expect, it } from "vitest";
import { Agent, RunError, mcpStdio } from "adaptor";
import { DriverError, findError } from "@adaptor/errors";
import { fakeCliEnv, fakeCliPath } from "@adaptor/testkit/fake-cli";
import { claude } from "@adaptor/claude";

// Fault injection: a CLI still starting its MCP servers writes no init line; one slow to shut down
// (a busy machine) never writes it after the stop either.

describe("a run stopped before Claude Code reported its MCP servers", () => {
  it("the active-execution budget running out says so: RunError active_execution_timeout 'while starting MCP servers', the required server's mcp connect error as cause", async () => {
    const agent = new Agent(
      claude({ command: fakeCliPath, env: fakeCliEnv([{ awaitStdinLine: true }, { hang: true }]), killGraceMs: 300 }),
    );
    try {
      const stuck = mcpStdio("stuck", process.execPath, { args: ["-e", "setInterval(() => {}, 1000)"], required: true });
      const error = await agent.run("hello", { mcpServers: [stuck], policy: { activeExecutionTimeoutMs: 1_500 } }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(RunError);
      expect((error as RunError).reason).toBe("active_execution_timeout");
      expect((error as RunError).message).toBe("active execution budget of 1500 ms exhausted while starting MCP servers");
      const cause = findError(error, DriverError);
      expect([cause?.op, cause?.device]).toEqual(["mcp connect", "stuck"]);
      expect(cause?.message).toBe(
        "[DEVICE_DISCONNECTED] mcp connect: stuck (still starting when the run was stopped; then: the CLI ended before reporting its MCP servers)",
      );
    } finally {
      await agent.close();
    }
  }, 30_000);

  it("no required server: the budget's verdict is left as it is", async () => {
    const agent = new Agent(
      claude({ command: fakeCliPath, env: fakeCliEnv([{ awaitStdinLine: true }, { hang: true }]), killGraceMs: 300 }),
    );
    try {
      const optional = mcpStdio("optional", process.execPath, { args: ["-e", "setInterval(() => {}, 1000)"] });
      const error = await agent
        .run("hello", { mcpServers: [optional], policy: { activeExecutionTimeoutMs: 1_500 } })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(RunError);
      expect((error as RunError).message).toBe("active execution budget of 1500 ms exhausted");
      expect(findError(error, DriverError)?.op).not.toBe("mcp connect");
    } finally {
      await agent.close();
    }
  }, 30_000);
});
