import { AdaptorError } from "@adaptor/errors";
import { closestOption } from "@adaptor/errors/internal";
import { ErrInvalidPolicy } from "./sentinels.js";

/** The `value` of an {@link InvalidPolicyError} for a field the policy does not have. */
const UNKNOWN_FIELD = "unknown field";

/** Peer SDKs' names for policy fields, with what to write here. */
const PEER_POLICY_FIELDS: Readonly<Record<string, string>> = {
  approvalPolicy: "the Codex SDK's approvalPolicy is approvals.permission here",
  sandboxMode: "the Codex SDK's sandboxMode is sandbox here",
  permissionMode: "the Claude Agent SDK's permissionMode is approvals.permission or sandbox here",
  webSearchEnabled: "the Codex SDK's webSearchEnabled is webSearch here",
};

function unknownFieldHint(field: string, known: readonly string[] | undefined): string {
  const name = field.slice(field.lastIndexOf(".") + 1);
  if (Object.hasOwn(PEER_POLICY_FIELDS, name)) return `; ${PEER_POLICY_FIELDS[name]}`;
  if (known === undefined) return "";
  const suggestion = closestOption(name, known);
  return `; ${suggestion !== undefined ? `did you mean ${JSON.stringify(suggestion)}? ` : ""}the fields are ${known.join(", ")}`;
}

/** A policy field holds a value outside its domain; matches {@link ErrInvalidPolicy} (never `ErrPolicyViolation`). */
export class InvalidPolicyError extends AdaptorError {
  static override readonly brand: symbol = Symbol.for("adaptor.error.InvalidPolicyError");
  static override readonly sentinel = ErrInvalidPolicy;
  /** Driver type, e.g. `"claude"`. */
  readonly driver: string;
  /** Dotted policy path, e.g. `"sandbox"` or `"approvals.permission"`. */
  readonly field: string;
  /** The rejected value, as text. */
  readonly value: string;

  /**
   * @param allowed - the field's domain, when known: the message then names the closest value (a
   *   likely typo, e.g. `"readonly"` → `"read_only"`) and lists them all. With `value`
   *   `"unknown field"` (a field the policy does not have, e.g. `approvalPolicy`): the known fields
   *   at that level, the closest one named.
   */
  constructor(driver: string, field: string, value: string, allowed?: readonly string[]) {
    const suggestion = allowed === undefined ? undefined : closestOption(value.replaceAll("-", "_"), allowed);
    const hint =
      allowed === undefined
        ? ""
        : `; ${suggestion !== undefined ? `did you mean ${JSON.stringify(suggestion)}? ` : ""}expected one of ${allowed.map((v) => JSON.stringify(v)).join(", ")}`;
    super(
      value === UNKNOWN_FIELD
        ? `${driver}: invalid policy: ${field} is not a policy field${unknownFieldHint(field, allowed)}`
        : `${driver}: invalid policy ${field}=${JSON.stringify(value)}${hint}`,
    );
    this.driver = driver;
    this.field = field;
    this.value = value;
  }
}
