import { AdaptorError } from "@adaptor/errors";
import type { SkillProvider } from "../catalog/skill-provider.js";
import { ErrSkillKeyMissing, ErrSkillNotFound, ErrSkillSourceMissing } from "../errors/sentinels.js";
import { SkillKeyConflictError } from "../errors/skill-key-conflict-error.js";
import { SkillMaterializationError } from "../errors/skill-materialization-error.js";
import type { Skill, SkillSource, SkillSpec } from "../skill/skill.js";
import type { ResolvedSkill } from "./resolved-skill.js";
import { isSafeRuntimeName, runtimeNameOf } from "./runtime-name.js";
import { describeSource, skillDifference } from "./skill-identity.js";

/** Options of {@link resolveSkills}. */
export interface ResolveSkillsOptions {
  /** Resolves `skillKey` references; its required skills join the result. */
  readonly provider?: SkillProvider | undefined;
  /** Passed to the provider; an aborted signal rejects with its reason. */
  readonly signal?: AbortSignal | undefined;
}

const SOURCE_KINDS = new Set(["dir", "inline", "archive"]);

type Concrete = Skill & { readonly source: SkillSource };

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null;
}

/** Checks one concrete declaration: a non-empty key, then a source of a known kind. */
function checkConcrete(value: unknown, where: string): Concrete {
  if (!isObject(value)) throw new AdaptorError(`${where}: not a skill declaration`, { sentinel: ErrSkillSourceMissing });
  const skill = value as Partial<Skill>;
  const source = skill.source as Partial<SkillSource> | undefined;
  const origin =
    isObject(source) && typeof source.kind === "string" && SOURCE_KINDS.has(source.kind)
      ? describeSource(source as SkillSource)
      : "no source";
  if (typeof skill.key !== "string" || skill.key.trim() === "") {
    throw new AdaptorError(`${where} (${origin}): empty skill key`, { sentinel: ErrSkillKeyMissing });
  }
  if (origin === "no source") {
    const detail = source === undefined ? "has no source" : `has an unknown source ${JSON.stringify((source as { kind?: unknown }).kind)}`;
    throw new AdaptorError(`skill ${JSON.stringify(skill.key)}: ${detail}`, { sentinel: ErrSkillSourceMissing });
  }
  return skill as Concrete;
}

/**
 * Resolves a run's skill declarations before launch: catalogue references through
 * `provider` (plus the provider's required skills), each declaration checked, duplicates of one key
 * merged when structurally identical, runtime folder names fixed. No file is read.
 *
 * Order: declarations in the given order (references replaced by what they resolve to), then the
 * provider's required skills not already present.
 *
 * @throws AdaptorError matching `ErrSkillKeyMissing` for an empty key (declaration or reference);
 * `ErrSkillSourceMissing` for a concrete skill without a (known) source; `ErrSkillNotFound`
 * naming every key the provider did not resolve (or when references are given without a provider);
 * {@link SkillKeyConflictError} for two structurally different declarations of one key;
 * {@link SkillMaterializationError} for an invalid or clashing explicit `runtimeName`; an
 * `AdaptorError` with the provider's rejection as `cause`; `signal.reason` when aborted.
 */
export async function resolveSkills(specs: readonly SkillSpec[], options: ResolveSkillsOptions = {}): Promise<readonly ResolvedSkill[]> {
  const { provider } = options;
  const signal = options.signal ?? new AbortController().signal;
  signal.throwIfAborted();
  const slots: ({ ref: string } | { skill: Concrete })[] = specs.map((spec, index) => {
    const where = `skill #${index + 1}`;
    if (isObject(spec) && spec.kind === "skill-key") {
      const key = typeof spec.key === "string" ? spec.key.trim() : "";
      if (key === "") throw new AdaptorError(`${where}: empty catalogue key`, { sentinel: ErrSkillKeyMissing });
      return { ref: key };
    }
    return { skill: checkConcrete(spec, where) };
  });
  const keys = [...new Set(slots.flatMap((slot) => ("ref" in slot ? [slot.ref] : [])))];
  let fromProvider: Concrete[] = [];
  if (provider) {
    let provided: readonly Skill[];
    try {
      provided = await provider.getSkills(keys, signal);
    } catch (error) {
      signal.throwIfAborted();
      throw new AdaptorError(`skill provider failed to resolve ${keys.length ? keys.join(", ") : "required skills"}`, { cause: error });
    }
    fromProvider = provided.map((skill, index) => checkConcrete(skill, `skill #${index + 1} from the provider`));
  }
  const missing = keys.filter((key) => !fromProvider.some((skill) => skill.key === key));
  if (missing.length > 0) {
    const why = provider ? "not found in the catalogue" : "no skillProvider is configured";
    throw new AdaptorError(`skill ${missing.map((key) => JSON.stringify(key)).join(", ")}: ${why}`, { sentinel: ErrSkillNotFound });
  }
  const ordered: Concrete[] = [];
  for (const slot of slots) {
    if ("skill" in slot) ordered.push(slot.skill);
    else ordered.push(...fromProvider.filter((skill) => skill.key === slot.ref));
  }
  ordered.push(...fromProvider.filter((skill) => !keys.includes(skill.key)));
  return assignRuntimeNames(merge(ordered));
}

/** One entry per key: identical duplicates merge (required if any is), different ones conflict. */
function merge(skills: readonly Concrete[]): Concrete[] {
  const byKey = new Map<string, Concrete>();
  for (const skill of skills) {
    const known = byKey.get(skill.key);
    if (!known) {
      byKey.set(skill.key, skill);
      continue;
    }
    const difference = skillDifference(known, skill);
    if (difference !== undefined) {
      throw new SkillKeyConflictError(skill.key, [describeSource(known.source), describeSource(skill.source)], difference);
    }
    if (skill.required && !known.required)
      byKey.set(skill.key, { ...known, required: true, ...(skill.reason !== undefined ? { reason: skill.reason } : {}) });
  }
  return [...byKey.values()];
}

function assignRuntimeNames(skills: readonly Concrete[]): readonly ResolvedSkill[] {
  const taken = new Set<string>();
  const explicit = skills.filter((skill) => skill.runtimeName !== undefined);
  for (const skill of explicit) {
    const name = skill.runtimeName ?? "";
    if (!isSafeRuntimeName(name)) {
      throw new SkillMaterializationError(skill.key, name, new TypeError(`runtime name ${JSON.stringify(name)} is not a safe folder name`));
    }
    if (taken.has(name.toLowerCase())) {
      throw new SkillMaterializationError(skill.key, name, new TypeError(`runtime name ${JSON.stringify(name)} is used by another skill`));
    }
    taken.add(name.toLowerCase());
  }
  return Object.freeze(
    skills.map((skill): ResolvedSkill => {
      let runtimeName = skill.runtimeName;
      if (runtimeName === undefined) {
        const base = runtimeNameOf(skill.key);
        runtimeName = base;
        for (let n = 2; taken.has(runtimeName.toLowerCase()); n++) runtimeName = `${base}-${n}`;
        taken.add(runtimeName.toLowerCase());
      }
      return Object.freeze({
        key: skill.key,
        runtimeName,
        source: skill.source,
        required: skill.required === true,
        ...(skill.reason !== undefined ? { reason: skill.reason } : {}),
        origin: describeSource(skill.source),
      });
    }),
  );
}
