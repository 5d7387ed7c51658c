// Skills through the Agent (issue 6 §1): every error rejects before the driver runs; skills of the
// agent and of the call append; what a run staged is gone after it, whatever the verdict.
import { existsSync, readFileSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { SkillBundle } from "@adaptor/driver";
import {
  Agent,
  ErrSkillKeyConflict,
  ErrSkillKeyMissing,
  ErrSkillMaterializationFailed,
  ErrSkillNotFound,
  ErrSkillSourceMissing,
  ErrFeatureUnsupported,
  SkillKeyConflictError,
  SkillMaterializationError,
  FeatureUnsupportedError,
  findError,
  isError,
  requireSkill,
  skillArchive,
  skillDir,
  skillInline,
  skillKey,
  skillSet,
  type Skill,
} from "adaptor";
import { scriptedDriver } from "./scripted-driver.js";
import { capabilityDriver } from "./support/capability-driver.js";

let work: string;
beforeEach(async () => {
  work = await mkdtemp(join(tmpdir(), "adaptor-skills-test-"));
});
afterEach(async () => {
  await rm(work, { recursive: true, force: true });
});

async function skillFolder(name: string): Promise<string> {
  const dir = join(work, name);
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, "SKILL.md"), `---\nname: ${name}\ndescription: ${name} skill\n---\n\nBody.\n`);
  return dir;
}

const inline = (name: string, body = "Body.") => skillInline({ name, description: `${name} skill`, body });

async function rejection(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error("expected a rejection");
}

/** A driver that records, during its run, the skill bundles it got and what their folders held. */
function recordingDriver() {
  const seen: { bundles: readonly SkillBundle[]; skillMd: string[] }[] = [];
  const driver = scriptedDriver(async (request) => {
    const bundles = request.skills ?? [];
    seen.push({ bundles, skillMd: bundles.map((b) => readFileSync(join(b.dir, "SKILL.md"), "utf8")) });
    return { text: "ok" };
  });
  return Object.assign(driver, { seen });
}

describe("skills: errors before the driver runs", () => {
  it("unknown catalogue key → ErrSkillNotFound", async () => {
    const driver = recordingDriver();
    const agent = new Agent(driver, { skillProvider: skillSet([inline("known")]) });
    const error = await rejection(agent.run("hi", { skills: [skillKey("unknown")] }));
    expect(isError(error, ErrSkillNotFound)).toBe(true);
    expect(error.message).toContain('"unknown"');
    expect(driver.requests).toHaveLength(0);
  });

  it("a concrete skill without a source → ErrSkillSourceMissing", async () => {
    const driver = recordingDriver();
    const error = await rejection(new Agent(driver).run("hi", { skills: [{ kind: "skill", key: "orphan" } satisfies Skill] }));
    expect(isError(error, ErrSkillSourceMissing)).toBe(true);
    expect(driver.requests).toHaveLength(0);
  });

  it("an empty key → ErrSkillKeyMissing", async () => {
    const driver = recordingDriver();
    const error = await rejection(new Agent(driver).run("hi", { skills: [skillDir(join(work, "x"), { key: "" })] }));
    expect(isError(error, ErrSkillKeyMissing)).toBe(true);
    expect(driver.requests).toHaveLength(0);
  });

  it("agent and call declare one key differently → SkillKeyConflictError { key, sources, detail }", async () => {
    const driver = recordingDriver();
    const agent = new Agent(driver, { skills: [inline("style", "Agent rules.")] });
    const error = await rejection(agent.run("hi", { skills: [inline("style", "Call rules.")] }));
    expect(isError(error, ErrSkillKeyConflict)).toBe(true);
    expect(findError(error, SkillKeyConflictError)).toMatchObject({
      key: "style",
      sources: ["inline", "inline"],
      detail: "inline body differs",
    });
    expect(driver.requests).toHaveLength(0);
  });

  it("staging fails → SkillMaterializationError { key, runtimeName, cause }", async () => {
    const driver = recordingDriver();
    const error = await rejection(
      new Agent(driver).run("hi", {
        skills: [inline("fine"), skillArchive(Buffer.from("garbage"), { key: "broken", runtimeName: "broken-kit" })],
      }),
    );
    expect(isError(error, ErrSkillMaterializationFailed)).toBe(true);
    const typed = findError(error, SkillMaterializationError);
    expect(typed).toMatchObject({ key: "broken", runtimeName: "broken-kit" });
    expect(typed?.cause).toBeInstanceOf(Error);
    expect(driver.requests).toHaveLength(0);
  });
});

describe("skills reach the driver", () => {
  it("agent and call skills append (agent first); identical duplicates merge; staged files removed after the run", async () => {
    const driver = recordingDriver();
    const reviewDir = await skillFolder("review");
    const agent = new Agent(driver, { skills: [skillDir(reviewDir), inline("house-style")] });
    await agent.run("hi", { skills: [inline("house-style"), inline("call-only")] });
    const [run] = driver.seen;
    expect(run?.bundles.map((b) => b.name)).toEqual(["review", "house-style", "call-only"]);
    expect(run?.bundles[0]?.dir).toBe(reviewDir);
    expect(run?.skillMd[1]).toContain("name: house-style");
    // Inline skills were staged for the run only; the host's own folder is untouched.
    for (const bundle of run?.bundles.slice(1) ?? []) expect(existsSync(bundle.dir)).toBe(false);
    expect(existsSync(join(reviewDir, "SKILL.md"))).toBe(true);
  });

  it("catalogue keys resolve; required catalogue skills join every run", async () => {
    const driver = recordingDriver();
    const catalog = skillSet([inline("review"), requireSkill(inline("house-rules"), "company policy")]);
    const agent = new Agent(driver, { skillProvider: catalog });
    await agent.run("one");
    await agent.run("two", { skills: [skillKey("review")] });
    expect(driver.seen.map((run) => run.bundles.map((b) => b.name))).toEqual([["house-rules"], ["review", "house-rules"]]);
  });

  it("staged files are removed when the driver fails too", async () => {
    let dirs: string[] = [];
    const driver = scriptedDriver(async (request) => {
      dirs = (request.skills ?? []).map((b) => b.dir);
      throw new Error("driver crashed");
    });
    const error = await rejection(new Agent(driver).run("hi", { skills: [inline("temp")] }));
    expect(error.message).toBe("driver crashed");
    expect(dirs).toHaveLength(1);
    expect(existsSync(dirs[0] ?? "")).toBe(false);
  });

  it("no skills and no provider: the request carries none", async () => {
    const driver = recordingDriver();
    await new Agent(driver).run("hi");
    expect(driver.requests[0]?.skills).toBeUndefined();
  });
});

describe("skills on a driver without the capability", () => {
  it("a run with a skill is refused before launch with FeatureUnsupportedError; the driver never runs", async () => {
    const driver = capabilityDriver({ skills: false });
    const err = await new Agent(driver)
      .run("p", { skills: [skillInline({ name: "notes", description: "d", body: "b" })] })
      .catch((error: unknown) => error);
    expect(isError(err, ErrFeatureUnsupported)).toBe(true);
    expect(findError(err, FeatureUnsupportedError)).toMatchObject({ driver: "capability", feature: "skills" });
    expect(driver.requests).toEqual([]);
  });

  it("a provider whose catalogue requires nothing adds no skill, so the run goes ahead", async () => {
    const driver = capabilityDriver({ skills: false });
    await new Agent(driver, { skillProvider: skillSet([]) }).run("p");
    expect(driver.requests).toHaveLength(1);
  });
});
