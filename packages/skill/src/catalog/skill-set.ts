import type { Skill } from "../skill/skill.js";
import type { SkillCatalog } from "./skill-provider.js";

/**
 * A static, in-memory catalogue. Entries given as a record are keyed by the record key when their
 * own `key` is empty; required entries join every run.
 *
 * @example
 * const catalog = skillSet([skillDir("./skills/review"), requireSkill(skillInline({ ... }), "house rules")]);
 * new Agent(driver, { skillProvider: catalog, skills: [skillKey("review")] });
 */
export function skillSet(skills: Iterable<Skill> | Readonly<Record<string, Skill>>): SkillCatalog {
  const entries: [string, Skill][] =
    Symbol.iterator in skills ? [...(skills as Iterable<Skill>)].map((skill) => [skill.key, skill]) : Object.entries(skills);
  const byKey = new Map<string, Skill>();
  for (const [mapKey, skill] of entries) {
    const key = skill.key.trim() === "" ? mapKey : skill.key;
    byKey.set(key, key === skill.key ? skill : Object.freeze({ ...skill, key }));
  }
  const sorted = [...byKey.values()].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return Object.freeze({
    getSkills(keys: readonly string[]): readonly Skill[] {
      const out = new Map<string, Skill>();
      for (const key of keys) {
        const skill = byKey.get(key);
        if (skill) out.set(key, skill);
      }
      for (const skill of sorted) if (skill.required && !out.has(skill.key)) out.set(skill.key, skill);
      return [...out.values()];
    },
    catalogue(): readonly Skill[] {
      return sorted;
    },
  });
}
