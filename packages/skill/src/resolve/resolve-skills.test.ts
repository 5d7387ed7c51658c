import { describe, expect, it } from "vitest";
import { findError, isError } from "@adaptor/errors";
import {
  ErrSkillKeyConflict,
  ErrSkillKeyMissing,
  ErrSkillMaterializationFailed,
  ErrSkillNotFound,
  ErrSkillSourceMissing,
  SkillKeyConflictError,
  SkillMaterializationError,
  requireSkill,
  resolveSkills,
  skillArchive,
  skillDir,
  skillInline,
  skillKey,
  skillSet,
  type Skill,
  type SkillProvider,
} from "../index.js";

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error("expected a rejection");
}

const inline = (name: string, body = "Do the thing.") => skillInline({ name, description: `About ${name}`, body });

describe("skill constructors", () => {
  it("default keys: folder name, inline name, archive name without its extension", () => {
    expect(skillDir("/srv/skills/release-notes/").key).toBe("release-notes");
    expect(inline("house-style").key).toBe("house-style");
    expect(skillArchive("/tmp/deploy-kit.tar.gz").key).toBe("deploy-kit");
    expect(skillArchive("/tmp/kit.zip", { key: "other" }).key).toBe("other");
    expect(skillArchive(new Uint8Array([1])).key).toBe("");
    expect(skillKey("review")).toEqual({ kind: "skill-key", key: "review" });
    expect(requireSkill(inline("x"), "house rules")).toMatchObject({ key: "x", required: true, reason: "house rules" });
    expect(Object.isFrozen(skillDir("/a"))).toBe(true);
  });
});

describe("resolveSkills: errors before anything is staged", () => {
  it("empty key of a concrete skill → ErrSkillKeyMissing", async () => {
    const error = await rejection(resolveSkills([skillDir("/srv/x", { key: "  " })]));
    expect(isError(error, ErrSkillKeyMissing)).toBe(true);
    expect(String((error as Error).message)).toContain("empty skill key");
    expect(isError(await rejection(resolveSkills([skillArchive(new Uint8Array([1, 2]))])), ErrSkillKeyMissing)).toBe(true);
  });

  it("empty catalogue key → ErrSkillKeyMissing", async () => {
    expect(isError(await rejection(resolveSkills([skillKey("")], { provider: skillSet([]) })), ErrSkillKeyMissing)).toBe(true);
  });

  it("a concrete skill without a source → ErrSkillSourceMissing naming the key", async () => {
    const noSource: Skill = { kind: "skill", key: "orphan" };
    const error = await rejection(resolveSkills([noSource]));
    expect(isError(error, ErrSkillSourceMissing)).toBe(true);
    expect((error as Error).message).toContain('"orphan"');
    const badSource = { kind: "skill", key: "odd", source: { kind: "ftp" } } as unknown as Skill;
    expect(isError(await rejection(resolveSkills([badSource])), ErrSkillSourceMissing)).toBe(true);
  });

  it("an unknown catalogue key → ErrSkillNotFound naming it; without a provider too", async () => {
    const provider = skillSet([inline("known")]);
    const error = await rejection(resolveSkills([skillKey("known"), skillKey("missing")], { provider }));
    expect(isError(error, ErrSkillNotFound)).toBe(true);
    expect((error as Error).message).toContain('"missing"');
    expect((error as Error).message).not.toContain('"known"');
    const noProvider = await rejection(resolveSkills([skillKey("known")]));
    expect(isError(noProvider, ErrSkillNotFound)).toBe(true);
    expect((noProvider as Error).message).toContain("no skillProvider");
  });

  it("structurally different declarations of one key → SkillKeyConflictError { key, sources, detail }", async () => {
    const error = await rejection(resolveSkills([skillDir("/srv/a/review"), skillDir("/srv/b/review")]));
    expect(isError(error, ErrSkillKeyConflict)).toBe(true);
    const conflict = findError(error, SkillKeyConflictError);
    expect(conflict).toBeDefined();
    expect(conflict?.key).toBe("review");
    expect(conflict?.sources).toEqual(["dir:/srv/a/review", "dir:/srv/b/review"]);
    expect(conflict?.detail).toBe("dir path differs (/srv/a/review vs /srv/b/review)");

    const kinds = findError(await rejection(resolveSkills([skillDir("/srv/x", { key: "k" }), inline("k")])), SkillKeyConflictError);
    expect(kinds?.sources).toEqual(["dir:/srv/x", "inline"]);
    expect(kinds?.detail).toBe("source kind differs (dir vs inline)");

    const bodies = findError(await rejection(resolveSkills([inline("k", "one"), inline("k", "two")])), SkillKeyConflictError);
    expect(bodies?.detail).toBe("inline body differs");
  });

  it("a catalogue skill and a concrete declaration of the same key that differ conflict", async () => {
    const provider = skillSet([skillDir("/catalog/review")]);
    const conflict = findError(
      await rejection(resolveSkills([skillKey("review"), skillDir("/mine/review")], { provider })),
      SkillKeyConflictError,
    );
    expect(conflict?.sources).toEqual(["dir:/catalog/review", "dir:/mine/review"]);
  });

  it("an invalid explicit runtime name → SkillMaterializationError", async () => {
    const error = await rejection(resolveSkills([skillDir("/srv/x", { runtimeName: "../escape" })]));
    expect(isError(error, ErrSkillMaterializationFailed)).toBe(true);
    expect(findError(error, SkillMaterializationError)).toMatchObject({ key: "x", runtimeName: "../escape" });
  });

  it("a provider rejection fails with the provider's error as cause", async () => {
    const boom = new Error("store offline");
    const provider: SkillProvider = { getSkills: () => Promise.reject(boom) };
    const error = await rejection(resolveSkills([skillKey("a")], { provider }));
    expect((error as Error).cause).toBe(boom);
  });

  it("an aborted signal rejects with its reason", async () => {
    const controller = new AbortController();
    const reason = new Error("stop");
    controller.abort(reason);
    expect(await rejection(resolveSkills([inline("a")], { signal: controller.signal }))).toBe(reason);
  });
});

describe("resolveSkills: merging, catalogue, runtime names", () => {
  it("identical duplicates merge silently, required if any declaration is", async () => {
    const resolved = await resolveSkills([
      inline("style"),
      requireSkill(inline("style"), "always"),
      skillDir("/srv/a/x"),
      skillDir("/srv/a/x/"),
    ]);
    expect(resolved.map((skill) => skill.key)).toEqual(["style", "x"]);
    expect(resolved[0]).toMatchObject({ required: true, reason: "always", runtimeName: "style", origin: "inline" });
  });

  it("references resolve in place; the catalogue's required skills join every run", async () => {
    const provider = skillSet([inline("review"), requireSkill(inline("house-rules"), "policy"), inline("unused")]);
    const resolved = await resolveSkills([inline("first"), skillKey("review")], { provider });
    expect(resolved.map((skill) => skill.key)).toEqual(["first", "review", "house-rules"]);
    expect((await resolveSkills([], { provider })).map((skill) => skill.key)).toEqual(["house-rules"]);
    expect((await provider.catalogue()).map((skill) => skill.key)).toEqual(["house-rules", "review", "unused"]);
  });

  it("record catalogues take the record key when an entry has none", async () => {
    const provider = skillSet({ tips: { kind: "skill", key: "", source: { kind: "inline", description: "d", body: "b" } } });
    expect((await resolveSkills([skillKey("tips")], { provider }))[0]?.key).toBe("tips");
  });

  it("runtime names: unsafe characters replaced, unique case-insensitively", async () => {
    const resolved = await resolveSkills([skillDir("/a/My Skill"), skillDir("/b/My?Skill"), inline("my-skill"), skillDir("/c/.hidden")]);
    expect(resolved.map((skill) => skill.runtimeName)).toEqual(["My-Skill", "My-Skill-2", "my-skill-3", "hidden"]);
  });
});
