import { createHash } from "node:crypto";
import { resolve } from "node:path";
import type { Skill, SkillSource } from "../skill/skill.js";

function digest(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}

/** A short description of where a skill comes from, for messages and `SkillKeyConflictError.sources`. */
export function describeSource(source: SkillSource): string {
  switch (source.kind) {
    case "dir":
      return `dir:${resolve(source.path)}`;
    case "inline":
      return "inline";
    case "archive":
      return typeof source.archive === "string" ? `archive:${resolve(source.archive)}` : `archive:<${source.archive.byteLength} bytes>`;
  }
}

/** The fields two declarations of one key must share, in comparison order, as comparable strings. */
function identityFields(skill: Skill & { source: SkillSource }): [string, string][] {
  const source = skill.source;
  const fields: [string, string][] = [["source kind", source.kind]];
  switch (source.kind) {
    case "dir":
      fields.push(["dir path", resolve(source.path)]);
      break;
    case "inline": {
      fields.push(["inline description", source.description], ["inline body", source.body]);
      const files = Object.entries(source.files ?? {})
        .map(
          ([path, content]) =>
            `${path}=${typeof content === "string" ? `text:${digest(Buffer.from(content))}` : `bytes:${digest(content)}`}`,
        )
        .sort();
      fields.push(["inline files", files.join("\n")]);
      break;
    }
    case "archive":
      fields.push(
        ["archive", typeof source.archive === "string" ? resolve(source.archive) : `sha256:${digest(source.archive)}`],
        ["archive format", source.format ?? "auto"],
        ["archive subpath", source.subpath ?? ""],
        ["archive limits", JSON.stringify(Object.entries(source.limits ?? {}).sort())],
      );
      break;
  }
  fields.push(["runtimeName", skill.runtimeName ?? ""]);
  return fields;
}

/**
 * What differs between two declarations of one key, or `undefined` when they are structurally
 * identical (required/reason markers do not count: they merge).
 */
export function skillDifference(a: Skill & { source: SkillSource }, b: Skill & { source: SkillSource }): string | undefined {
  const left = identityFields(a);
  const right = identityFields(b);
  // The source kind comes first and fixes the remaining fields, so both lists align once it matches.
  for (const [index, [field, x]] of left.entries()) {
    const y = right[index]?.[1] ?? "";
    if (x === y) continue;
    return OPAQUE.has(field) ? `${field} differs` : `${field} differs (${x || "-"} vs ${y || "-"})`;
  }
  return undefined;
}

/** Fields whose values are too long to quote in a message. */
const OPAQUE = new Set(["inline description", "inline body", "inline files"]);
