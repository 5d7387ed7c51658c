// Options are copied when they are given: changing the caller's env, metadata, policy or lists
// afterwards reaches no later run (neither Agent options nor a run's, once stream() returned).
import { describe, expect, it } from "vitest";
import type { DriverRequest } from "@adaptor/driver";
import { Agent } from "../src/index.js";
import { scriptedDriver } from "./scripted-driver.js";

function recordingAgentDriver() {
  const requests: DriverRequest[] = [];
  const driver = scriptedDriver(async (request) => {
    requests.push(request);
    return { text: "ok" };
  });
  return { driver, requests };
}

describe("options are copied at the call", () => {
  it("Agent env and metadata (nested too) changed after construction reach no later run", async () => {
    const { driver, requests } = recordingAgentDriver();
    const env: Record<string, string> = { TOKEN: "first" };
    const metadata: Record<string, unknown> = { tenant: "acme", tags: ["a"], nested: { level: 1 } };
    const agent = new Agent(driver, { env, metadata });
    env["TOKEN"] = "changed";
    env["ADDED"] = "sneaked in";
    metadata["tenant"] = "other";
    (metadata["tags"] as string[]).push("b");
    (metadata["nested"] as { level: number }).level = 2;
    await agent.run("p");
    expect(requests[0]?.env).toEqual({ TOKEN: "first" });
    expect(requests[0]?.metadata).toEqual({ tenant: "acme", tags: ["a"], nested: { level: 1 } });
    await agent.close();
  });

  it("a run's env and metadata changed right after stream() do not reach that run", async () => {
    const { driver, requests } = recordingAgentDriver();
    const agent = new Agent(driver);
    const env: Record<string, string> = { MODE: "one" };
    const metadata: Record<string, unknown> = { step: 1 };
    const stream = agent.stream("p", { env, metadata });
    env["MODE"] = "two";
    metadata["step"] = 2;
    await stream.result();
    expect(requests[0]?.env).toEqual({ MODE: "one" });
    expect(requests[0]?.metadata).toEqual({ step: 1 });
    await agent.close();
  });
});
