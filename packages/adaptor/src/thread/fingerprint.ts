import { createHash } from "node:crypto";
import { SessionConfigFingerprintError } from "@adaptor/driver";

/**
 * Canonical JSON of `value` (object keys sorted) for fingerprints.
 * @throws SessionConfigFingerprintError for functions, symbols, bigints and cycles; the error names
 * the path with map keys elided and never the values (docs/errors.md "Driver extension errors").
 */
export function canonicalJson(value: unknown, path = "config", seen = new Set<object>()): string {
  if (value === null || typeof value === "boolean" || typeof value === "string") return JSON.stringify(value);
  if (typeof value === "number") return Number.isFinite(value) ? JSON.stringify(value) : JSON.stringify(String(value));
  if (value === undefined) return "null";
  if (typeof value === "function" || typeof value === "symbol" || typeof value === "bigint") {
    throw new SessionConfigFingerprintError({ path, type: typeof value, kind: typeof value, why: "not representable as JSON" });
  }
  if (value instanceof Date) return JSON.stringify(value.toISOString());
  if (seen.has(value)) throw new SessionConfigFingerprintError({ path, type: "object", kind: "cycle", why: "cyclic reference" });
  seen.add(value);
  try {
    if (Array.isArray(value)) return `[${value.map((item) => canonicalJson(item, `${path}[]`, seen)).join(",")}]`;
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v, `${path}.*`, seen)}`).join(",")}}`;
  } finally {
    seen.delete(value);
  }
}

/**
 * The compatibility fingerprint of a thread: sha256 of driver type, model (left `undefined` for a
 * driver whose resumed sessions can switch models), workspace, identity, driver config and the
 * agent's host tools (each tool's name and `revision`, sorted by name). An
 * agent without host tools leaves `hostTools` out, so its fingerprint is what it was before tools
 * were part of it.
 */
export function threadFingerprint(parts: {
  driverType: string;
  model: string | undefined;
  workspace: string | undefined;
  identity: string;
  driverConfig: unknown;
  hostTools?: readonly { readonly name: string; readonly revision: string | undefined }[] | undefined;
}): string {
  const hostTools = parts.hostTools?.length
    ? [...parts.hostTools]
        .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
        .map(({ name, revision }) => ({ name, revision: revision ?? null }))
    : undefined;
  return createHash("sha256")
    .update(canonicalJson({ ...parts, hostTools }))
    .digest("hex");
}
