import { describe, expect, it } from "vitest";
import { Agent, ErrFeatureUnsupported, FeatureUnsupportedError, findError, isError } from "adaptor";
import { hostileAcp } from "./hostile-agent/hostile.js";

// agent.forkSession() over ACP is refused: ACP's `session/fork` opens the fork as a live session
// of the agent's process, and an agent need not keep it once that process ends (claude-agent-acp
// writes nothing of it before a prompt), so a fork by id without a run is not promised. A thread's
// fork (`thread.fork()`, with the config's `fork: true`) runs its first turn on the fork instead.

describe("acp: forkSession", () => {
  it("is FeatureUnsupported (feature forkSession) before a process starts, even for an agent that offers session/fork", async () => {
    await using agent = new Agent(
      hostileAcp(
        {
          initialize: [{ respond: { protocolVersion: 1, agentCapabilities: { loadSession: true, sessionCapabilities: { fork: {} } } } }],
          "session/fork": [{ respond: { sessionId: "forked-1" } }],
        },
        { fork: true, command: "/nonexistent/agent" },
      ),
    );
    const err = await agent.forkSession("s-1").then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(isError(err, ErrFeatureUnsupported)).toBe(true);
    expect(findError(err, FeatureUnsupportedError)).toMatchObject({ driver: "hostile", feature: "forkSession" });
  });
});
