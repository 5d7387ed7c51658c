import { afterEach, describe, expect, it } from "vitest";
import { Agent, FeatureUnsupportedError, type AgentEvent } from "adaptor";
import { codexHarness, type CodexHarness } from "./support.js";

// Real codex binary: codex 0.171.0 has a plan collaboration mode only behind its experimental API,
// and never asks to leave it (the client starts the next turn itself), so there is no plan_review
// to bring to the host: `planMode` is refused before anything starts.

let h: CodexHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe("plan mode on codex (real binary)", () => {
  it("planMode is refused with FeatureUnsupportedError before launch: no process, no model request", async () => {
    h = await codexHarness();
    const agent = new Agent(h.driver);
    const events: AgentEvent[] = [];
    const stream = agent.stream("PLAN_RUN", { planMode: true });
    for await (const event of stream) events.push(event);
    const error = await stream.result().catch((thrown: unknown) => thrown);
    await agent.close();
    expect(error).toBeInstanceOf(FeatureUnsupportedError);
    expect(error).toMatchObject({ driver: "codex", feature: "planMode" });
    expect(events.some((event) => event.type === "process")).toBe(false);
    expect(h.server.requests).toEqual([]);
  });
});
