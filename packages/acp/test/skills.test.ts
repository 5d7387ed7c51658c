// Skills over ACP: the protocol has no way for a client to hand an agent skills, so a run that asks
// for one is refused before launch with a typed error (never run with the skill silently dropped).
import { afterEach, describe, expect, it } from "vitest";
import { ErrFeatureUnsupported, FeatureUnsupportedError, findError, isError, skillInline, type AgentEvent } from "adaptor";
import { geminiHarness, type GeminiHarness } from "./support.js";

let h: GeminiHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe("skills on an ACP agent (gemini-cli 0.61.0)", () => {
  it("a run with a skill is refused before launch: FeatureUnsupportedError, no process, no model request", async () => {
    h = await geminiHarness();
    const skill = skillInline({ name: "release-notes", description: "ACP_SKILL_MARKER house notes", body: "Bullets." });
    const stream = h.agent.stream("hello", { skills: [skill] });
    const events: AgentEvent[] = [];
    for await (const event of stream) events.push(event);
    const err = await stream.result().catch((error: unknown) => error);
    expect(isError(err, ErrFeatureUnsupported)).toBe(true);
    expect(findError(err, FeatureUnsupportedError)).toMatchObject({ driver: "gemini", feature: "skills" });
    expect(events.filter((event) => event.type === "process")).toEqual([]);
    expect(h.server.requests).toEqual([]);
  });
});
