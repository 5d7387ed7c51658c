// Skills on the real codex binary (pinned 0.171.0) against the scripted OpenAI server: a run's
// skill is staged for the app-server process and announced with `skills/extraRoots/set`, so the
// model request lists it; the user's CODEX_HOME is never written and nothing staged is left after.
import { existsSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { Driver, DriverRequest } from "@adaptor/driver";
import { MemoryThreadStore } from "@adaptor/threadstore";
import { Agent, type AgentEvent, ErrFeatureUnsupported, FeatureUnsupportedError, findError, isError, skillInline } from "adaptor";
import { codexHarness, type CodexHarness } from "./support.js";

let h: CodexHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const SKILL = skillInline({
  name: "release-notes",
  description: "CODEX_SKILL_MARKER writes release notes in the house format",
  body: "Write the notes as a bulleted list.",
});

/** The staged skill folders codex processes of this test could have left in the temp directory. */
function stagedSkillDirs(): string[] {
  return readdirSync(tmpdir()).filter((name) => name.startsWith("adaptor-codex-skills-"));
}

describe("skills on the real codex binary", () => {
  it("a run's skill reaches the model request: its name, description and SKILL.md path are listed", async () => {
    h = await codexHarness();
    const before = new Set(stagedSkillDirs());
    const paths: string[] = [];
    const recording: Driver = {
      descriptor: h.driver.descriptor,
      validateConfig: () => h!.driver.validateConfig(),
      run: (request: DriverRequest, sink, signal) => {
        paths.push(...(request.skills ?? []).map((skill) => skill.name));
        return h!.driver.run(request, sink, signal);
      },
      close: () => h!.driver.close(),
    };
    const agent = new Agent(recording);
    const result = await agent.run("which skills do you have?", { skills: [SKILL] });
    expect(result.status).toBe("completed");
    expect(paths).toEqual(["release-notes"]);

    // codex lists the skill with its description and the path of its SKILL.md below an aliased root,
    // and names that root (our private staging folder) in its "Skill roots" section.
    const instructions = JSON.stringify(h.server.responses()[0]?.body);
    const listed =
      /- release-notes: CODEX_SKILL_MARKER writes release notes in the house format \(file: (r\d+)\/release-notes\/SKILL\.md\)/.exec(
        instructions,
      );
    expect(listed?.[0]).toBeDefined();
    expect(instructions.includes("### Skill roots")).toBe(true);
    expect(/adaptor-codex-skills-[A-Za-z0-9]+\/skills/.test(instructions)).toBe(true);
    // The user's own CODEX_HOME gets no skills folder from the run.
    expect(existsSync(join(h.env.codexHome, "skills", "release-notes"))).toBe(false);

    await agent.close();
    expect(stagedSkillDirs().filter((name) => !before.has(name))).toEqual([]);
  });

  it("a thread with a skill keeps its process between turns, and every turn's request lists the skill", async () => {
    h = await codexHarness();
    const agent = new Agent(h.driver, { threadStore: new MemoryThreadStore(), skills: [SKILL] });
    const thread = agent.thread("notes");
    const spawned: number[] = [];
    for (const prompt of ["first turn", "second turn"]) {
      const stream = thread.stream(prompt);
      for await (const event of stream as AsyncIterable<AgentEvent>) {
        if (event.type === "process" && event.kind === "spawn" && event.pid !== undefined) spawned.push(event.pid);
      }
      await stream.result();
    }
    expect(spawned).toHaveLength(1);
    const listed = h.server.responses().map((entry) => JSON.stringify(entry.body).includes("- release-notes: CODEX_SKILL_MARKER"));
    expect(listed).toEqual([true, true]);
    await agent.close();
  });

  it("a run without skills lists none of ours", async () => {
    h = await codexHarness();
    const agent = new Agent(h.driver);
    await agent.run("hello");
    expect(JSON.stringify(h.server.responses()[0]?.body)).not.toContain("CODEX_SKILL_MARKER");
    await agent.close();
  });

  it("the exec transport refuses a run with skills before launch (FeatureUnsupportedError)", async () => {
    h = await codexHarness({ config: { transport: "exec" } });
    const agent = new Agent(h.driver);
    const err = await agent.run("hello", { skills: [SKILL] }).catch((error: unknown) => error);
    expect(isError(err, ErrFeatureUnsupported)).toBe(true);
    expect(findError(err, FeatureUnsupportedError)).toMatchObject({ driver: "codex", feature: "skills" });
    expect(h.server.responses()).toEqual([]);
    await agent.close();
  });
});
