// Seed 002 ("Public errors") as data: one entry per row of every table ("Hosttool errors": the
// session recorder's three sentinels and the delegation row). Each row knows how to build a realistic thrown error from any Surface,
// so the same table runs against the original modules and against a bundled second copy.
import type { Sentinel } from "@adaptor/errors";
import { exported, PACKAGE_OF, type Surface, type SurfaceKey } from "./surface.js";

type LeafKey = Exclude<SurfaceKey, "root" | "errors">;

/** A typed error row: its class, a realistic instance, and the fields the seed documents. */
export interface TypedSpec {
  /** The class's export name, in its owner package (and in the root when `inRoot`). */
  readonly className: string;
  /** The package that owns the class. */
  readonly owner: LeafKey | "root";
  /** The root re-exports the class (it must then be the very same object). */
  readonly inRoot: boolean;
  /** The root's name for the class, when it differs from `className` (`A2AProtocolError`). */
  readonly rootName?: string;
  /** A realistic instance made with `surface`'s classes. */
  make(surface: Surface): Error;
  /** Documented fields and the values `make` gives them. */
  readonly fields: Readonly<Record<string, unknown>>;
}

/** One row of a seed 002 table. */
export interface SeedRow {
  /** The seed table the row comes from. */
  readonly table: string;
  /** The row's name as the seed writes it (the root name for re-exported identities). */
  readonly name: string;
  /** The root export name of the row's sentinel, when the root exports it. */
  readonly root?: string;
  /** The canonical leaf identity, when the row names one. */
  readonly leaf?: { readonly owner: LeafKey; readonly name: string };
  /** For business rows: the RunError reason (FailureReason) that selects this sentinel. */
  readonly reason?: string;
  readonly typed?: TypedSpec;
  /** Root export names of sentinels this row's identity also matches (ErrApprovalExpired → ErrApprovalResolved). */
  readonly alsoMatches?: readonly string[];
}

const RUN_ID = "01936f5e-8c2a-7b4d-9e1f-2a3b4c5d6e7f";

/** A real `Result` with partial audit data, as a RunError carries it. */
export function partialResult(surface: Surface): InstanceType<Surface["root"]["Result"]> {
  return new surface.root.Result({
    runId: RUN_ID,
    model: "claude-sonnet-4-5",
    provider: "anthropic",
    text: "I started reviewing the diff",
    usage: { inputTokens: 1200, outputTokens: 48 },
    costUsd: 0.0042,
    durationMs: 1834,
    raw: { stdout: '{"type":"result","subtype":"error_during_execution"}\n', stderr: "" },
    transcript: [{ kind: "assistant", text: "I started reviewing the diff" }],
  });
}

const business = (name: string, reason: string, message: string): SeedRow => ({
  table: "Root business failures",
  name,
  root: name,
  reason,
  typed: {
    className: "RunError",
    owner: "root",
    inRoot: true,
    make: (s) => new s.root.RunError({ reason, message, details: { terminalReason: reason }, result: partialResult(s) }),
    fields: { reason, message, details: { terminalReason: reason } },
  },
});

const preInvocation = (name: string, owner: LeafKey, leafName: string, typed?: TypedSpec): SeedRow => ({
  table: "Root pre-invocation errors",
  name,
  root: name,
  leaf: { owner, name: leafName },
  ...(typed ? { typed } : {}),
});

const rootOnly = (table: string, name: string, alsoMatches?: readonly string[]): SeedRow => ({
  table,
  name,
  root: name,
  ...(alsoMatches ? { alsoMatches } : {}),
});

const leafOnly = (table: string, owner: LeafKey, name: string, typed?: TypedSpec): SeedRow => ({
  table,
  name: `${PACKAGE_OF[owner]} ${name}`,
  leaf: { owner, name },
  ...(typed ? { typed } : {}),
});

// ---- Typed errors, built with realistic arguments. -------------------------------------------

const skillKeyConflict: TypedSpec = {
  className: "SkillKeyConflictError",
  owner: "skill",
  inRoot: true,
  make: (s) => new s.skill.SkillKeyConflictError("code-review", ["dir:/repo/.skills/code-review", "inline"], "SKILL.md bodies differ"),
  fields: {
    key: "code-review",
    sources: ["dir:/repo/.skills/code-review", "inline"],
    detail: "SKILL.md bodies differ",
  },
};

/** The materialiser's own failure, kept as `cause` of a SkillMaterializationError. */
export const materializerCause = (s: Surface): Error =>
  new s.errors.DriverError({
    op: "write",
    device: ".claude/skills/code-review/SKILL.md",
    code: s.errors.ErrCode.Permission,
    cause: "EACCES: permission denied",
  });

const skillMaterialization: TypedSpec = {
  className: "SkillMaterializationError",
  owner: "skill",
  inRoot: true,
  make: (s) => new s.skill.SkillMaterializationError("code-review", "code-review-3f2a", materializerCause(s)),
  fields: { key: "code-review", runtimeName: "code-review-3f2a" },
};

/** A real parse failure, kept as `cause` of an InvalidOutputSchemaError. */
export function schemaParseFailure(): SyntaxError {
  try {
    JSON.parse('{"type": "object", "properties": {');
  } catch (error) {
    if (error instanceof SyntaxError) return error;
  }
  throw new Error("JSON.parse accepted a truncated schema");
}

const invalidOutputSchema: TypedSpec = {
  className: "InvalidOutputSchemaError",
  owner: "driver",
  inRoot: true,
  make: (s) => new s.driver.InvalidOutputSchemaError("not JSON", { cause: schemaParseFailure() }),
  fields: { reason: "not JSON" },
};

const structuredOutputUnsupported: TypedSpec = {
  className: "StructuredOutputUnsupportedError",
  owner: "driver",
  inRoot: true,
  make: (s) => new s.driver.StructuredOutputUnsupportedError("claude", "neither native enforcement nor prompt validation"),
  fields: { driver: "claude", reason: "neither native enforcement nor prompt validation" },
};

/** What `validateConfig` tripped over, kept as `cause` of an InvalidDriverConfigError. */
export const driverConfigCause = (s: Surface): Error =>
  new s.errors.DriverError({
    op: "validate",
    device: "claude",
    code: s.errors.ErrCode.Invalid,
    cause: "extraArgs may not set --output-format",
  });

const invalidDriverConfig: TypedSpec = {
  className: "InvalidDriverConfigError",
  owner: "driver",
  inRoot: true,
  make: (s) =>
    new s.driver.InvalidDriverConfigError("claude", "extraArgs may not set --output-format", {
      cause: driverConfigCause(s),
    }),
  fields: { driver: "claude" },
};

const invalidPolicy: TypedSpec = {
  className: "InvalidPolicyError",
  owner: "driver",
  inRoot: true,
  make: (s) => new s.driver.InvalidPolicyError("claude", "approvals.permission", "sometimes"),
  fields: { driver: "claude", field: "approvals.permission", value: "sometimes" },
};

const policyCapabilityUnsupported: TypedSpec = {
  className: "PolicyCapabilityUnsupportedError",
  owner: "driver",
  inRoot: true,
  make: (s) => new s.driver.PolicyCapabilityUnsupportedError("claude", "browser", "allow"),
  fields: { driver: "claude", dimension: "browser", value: "allow" },
};

const humanDecisionModeUnsupported: TypedSpec = {
  className: "HumanDecisionModeUnsupportedError",
  owner: "driver",
  inRoot: true,
  make: (s) => new s.driver.HumanDecisionModeUnsupportedError("claude", "plan_review", "auto_deny"),
  fields: { driver: "claude", kind: "plan_review", mode: "auto_deny" },
};

const sessionConfigFingerprint: TypedSpec = {
  className: "SessionConfigFingerprintError",
  owner: "driver",
  inRoot: true,
  make: (s) =>
    new s.driver.SessionConfigFingerprintError({
      path: "config.env[*]",
      type: "function",
      kind: "function",
      why: "functions cannot be canonicalised",
    }),
  fields: { path: "config.env[*]", type: "function", kind: "function", why: "functions cannot be canonicalised" },
};

const busy: TypedSpec = {
  className: "BusyError",
  owner: "threadstore",
  inRoot: false,
  make: (s) => new s.threadstore.BusyError("thread:acme/issue-42"),
  fields: { target: "thread:acme/issue-42" },
};

const leaseLost: TypedSpec = {
  className: "LeaseLostError",
  owner: "threadstore",
  inRoot: false,
  make: (s) => new s.threadstore.LeaseLostError("thread:acme/issue-42"),
  fields: { target: "thread:acme/issue-42" },
};

const alreadyExists: TypedSpec = {
  className: "AlreadyExistsError",
  owner: "threadstore",
  inRoot: false,
  make: (s) => new s.threadstore.AlreadyExistsError("thread:acme/issue-43"),
  fields: { key: "thread:acme/issue-43" },
};

const invalidSessionKey: TypedSpec = {
  className: "InvalidSessionKeyError",
  owner: "sessionrecorder",
  inRoot: true,
  make: (s) => new s.sessionrecorder.InvalidSessionKeyError("../../etc/passwd", "contains a path separator"),
  fields: { key: "../../etc/passwd", reason: "contains a path separator" },
};

const eventLogCorrupt: TypedSpec = {
  className: "EventLogCorruptError",
  owner: "sessionrecorder",
  inRoot: true,
  make: (s) => new s.sessionrecorder.EventLogCorruptError({ key: "run-42", kind: "torn-final-line", line: 18, offset: 40960 }),
  fields: { key: "run-42", kind: "torn-final-line", line: 18, offset: 40960, repairable: true },
};

const hosttool = (name: string, typed?: TypedSpec): SeedRow => ({
  table: "Hosttool errors",
  name,
  root: name,
  leaf: { owner: "sessionrecorder", name },
  ...(typed ? { typed } : {}),
});

/** A dropped connection, as the A2A client keeps it under a ProtocolError. */
export const connectionCause = (s: Surface): Error =>
  new s.errors.DriverError({ op: "message/send", device: "a2a", code: s.errors.ErrCode.ServiceUnavailable, cause: "ECONNRESET" });

const protocolError: TypedSpec = {
  className: "ProtocolError",
  owner: "a2a",
  inRoot: true,
  rootName: "A2AProtocolError",
  make: (s) =>
    new s.a2a.ProtocolError({
      op: "message/send",
      reason: "connection failed",
      cause: connectionCause(s),
      raw: 'upstream said: {"token":"abc123"}',
    }),
  fields: { op: "message/send", reason: "connection failed", raw: 'upstream said: {"token":"[redacted]"}' },
};

const streamRecovery: TypedSpec = {
  className: "StreamRecoveryError",
  owner: "a2a",
  inRoot: true,
  rootName: "A2AStreamRecoveryError",
  make: (s) => new s.a2a.StreamRecoveryError("task-42", connectionCause(s), 3),
  fields: { taskId: "task-42" },
};

const delegation: TypedSpec = {
  className: "DelegationError",
  owner: "a2a",
  inRoot: true,
  make: (s) =>
    new s.a2a.DelegationError({
      code: "remote_failed",
      message: "remote agent: agent_error: tests fail",
      retryable: false,
      remoteStatus: "failed",
      metadata: { taskId: "task-42", failure: "agent_error" },
    }),
  fields: {
    code: "remote_failed",
    message: "remote agent: agent_error: tests fail",
    retryable: false,
    remoteStatus: "failed",
    metadata: { taskId: "task-42", failure: "agent_error" },
  },
};

const a2aRow = (name: string): SeedRow => ({
  table: "A2A client errors",
  name: name.replace(/^Err/, "ErrA2A"),
  root: name.replace(/^Err/, "ErrA2A"),
  leaf: { owner: "a2a", name },
});

// ---- The tables. --------------------------------------------------------------------------------

export const SEED_ROWS: readonly SeedRow[] = [
  // Agent lifecycle
  rootOnly("Agent lifecycle", "ErrAgentClosed"),

  // Root business failures
  business("ErrApprovalDenied", "approval_denied", "approval denied by policy: Bash rm -rf build"),
  business("ErrApprovalTimeout", "approval_timeout", "approval deadline elapsed after 30000ms"),
  business("ErrAgentFailed", "agent_error", "API Error: 400 invalid_request_error"),
  business("ErrRunCancelled", "cancelled", "the CLI reported an interrupted turn"),
  business("ErrPolicyViolation", "policy_violation", "structured output failed validation"),

  // Root pre-invocation errors
  preInvocation("ErrSkillNotFound", "skill", "ErrSkillNotFound"),
  preInvocation("ErrSkillKeyConflict", "skill", "ErrSkillKeyConflict", skillKeyConflict),
  preInvocation("ErrSkillMaterializationFailed", "skill", "ErrSkillMaterializationFailed", skillMaterialization),
  preInvocation("ErrSkillSourceMissing", "skill", "ErrSkillSourceMissing"),
  preInvocation("ErrSkillKeyMissing", "skill", "ErrSkillKeyMissing"),
  preInvocation("ErrInvalidMCPConfig", "mcp", "ErrInvalidConfig"),
  preInvocation("ErrMCPUnsupported", "mcp", "ErrUnsupported"),
  preInvocation("ErrMCPTransportUnsupported", "mcp", "ErrTransportUnsupported"),
  preInvocation("ErrInvalidOutputSchema", "driver", "ErrInvalidOutputSchema", invalidOutputSchema),
  preInvocation("ErrStructuredOutputUnsupported", "driver", "ErrStructuredOutputUnsupported", structuredOutputUnsupported),
  preInvocation("ErrInvalidDriverConfig", "driver", "ErrInvalidDriverConfig", invalidDriverConfig),
  preInvocation("ErrInvalidPolicy", "driver", "ErrInvalidPolicy", invalidPolicy),
  preInvocation("ErrPolicyCapabilityUnsupported", "driver", "ErrPolicyCapabilityUnsupported", policyCapabilityUnsupported),
  preInvocation("ErrHumanDecisionModeUnsupported", "driver", "ErrHumanDecisionModeUnsupported", humanDecisionModeUnsupported),

  // Host-defined Tool errors (leaf only)
  leafOnly("Host-defined Tool errors", "tool", "ErrInvalidDefinition"),
  leafOnly("Host-defined Tool errors", "tool", "ErrInvalidInput"),
  leafOnly("Host-defined Tool errors", "tool", "ErrInvalidOutput"),

  // Root Thread errors
  rootOnly("Root Thread errors", "ErrThreadStoreRequired"),
  rootOnly("Root Thread errors", "ErrThreadNotFound"),
  rootOnly("Root Thread errors", "ErrThreadBusy"),
  rootOnly("Root Thread errors", "ErrThreadIncompatible"),
  rootOnly("Root Thread errors", "ErrThreadLeaseLost"),
  rootOnly("Root Thread errors", "ErrThreadCheckpointMissing"),
  rootOnly("Root Thread errors", "ErrThreadAlreadyExists"),
  rootOnly("Root Thread errors", "ErrResumeRejected"),

  // Approval responder errors
  rootOnly("Approval responder errors", "ErrApprovalResolved"),
  rootOnly("Approval responder errors", "ErrApprovalExpired", ["ErrApprovalResolved"]),
  rootOnly("Approval responder errors", "ErrApprovalKindMismatch"),
  rootOnly("Approval responder errors", "ErrApprovalUnavailable"),

  // threadstore errors (leaf only, typed)
  leafOnly("threadstore errors", "threadstore", "ErrBusy", busy),
  leafOnly("threadstore errors", "threadstore", "ErrLeaseLost", leaseLost),
  leafOnly("threadstore errors", "threadstore", "ErrAlreadyExists", alreadyExists),

  // Hosttool errors: hosttools/sessionrecorder is @adaptor/sessionrecorder.
  hosttool("ErrInvalidSessionKey", invalidSessionKey),
  hosttool("ErrJSONLEventBackendClosed"),
  hosttool("ErrJSONLEventLogCorrupt", eventLogCorrupt),

  // Driver extension errors: the typed forms from @adaptor/driver.
  {
    table: "Driver extension errors",
    name: "@adaptor/driver InvalidDriverConfigError",
    leaf: { owner: "driver", name: "ErrInvalidDriverConfig" },
    typed: invalidDriverConfig,
  },
  {
    table: "Driver extension errors",
    name: "@adaptor/driver InvalidPolicyError",
    leaf: { owner: "driver", name: "ErrInvalidPolicy" },
    typed: invalidPolicy,
  },
  {
    table: "Driver extension errors",
    name: "@adaptor/driver PolicyCapabilityUnsupportedError",
    leaf: { owner: "driver", name: "ErrPolicyCapabilityUnsupported" },
    typed: policyCapabilityUnsupported,
  },
  {
    table: "Driver extension errors",
    name: "@adaptor/driver HumanDecisionModeUnsupportedError",
    leaf: { owner: "driver", name: "ErrHumanDecisionModeUnsupported" },
    typed: humanDecisionModeUnsupported,
  },
  {
    table: "Driver extension errors",
    name: "@adaptor/driver InvalidOutputSchemaError",
    leaf: { owner: "driver", name: "ErrInvalidOutputSchema" },
    typed: invalidOutputSchema,
  },
  {
    table: "Driver extension errors",
    name: "@adaptor/driver StructuredOutputUnsupportedError",
    leaf: { owner: "driver", name: "ErrStructuredOutputUnsupported" },
    typed: structuredOutputUnsupported,
  },
  { table: "Driver extension errors", name: "@adaptor/driver SessionConfigFingerprintError", typed: sessionConfigFingerprint },

  // A2A client errors: leaf names in @adaptor/a2a-client, `ErrA2A…` / `A2A…Error` in the root.
  a2aRow("ErrInvalidAgentCard"),
  a2aRow("ErrProtocol"),
  a2aRow("ErrUnauthorized"),
  a2aRow("ErrNotFound"),
  a2aRow("ErrUnsupported"),
  a2aRow("ErrUntrustedOrigin"),
  { table: "A2A client errors", name: "@adaptor/a2a-client ProtocolError", typed: protocolError },
  { table: "A2A client errors", name: "@adaptor/a2a-client StreamRecoveryError", typed: streamRecovery },

  // Hosttool errors: the delegation tool's typed error (no sentinel, no unwrap contract).
  { table: "Hosttool errors", name: "@adaptor/a2a-client DelegationError", typed: delegation },
];

// ---- Reading a row against a surface. -----------------------------------------------------------

/** The row's sentinel in `surface` (the root export when there is one, else the leaf's). */
export function sentinelOf(row: SeedRow, surface: Surface): Sentinel | undefined {
  if (row.root) return exported(surface, "root", row.root) as Sentinel;
  if (row.leaf) return exported(surface, row.leaf.owner, row.leaf.name) as Sentinel;
  return undefined;
}

/** A class exported under `name` from `key`. */
export function classOf(surface: Surface, key: SurfaceKey, name: string): abstract new (...args: never[]) => Error {
  return exported(surface, key, name) as abstract new (...args: never[]) => Error;
}

/** The typed class of a row, from its owner package. */
export function typedClassOf(row: SeedRow, surface: Surface): (abstract new (...args: never[]) => Error) & { readonly brand: symbol } {
  if (!row.typed) throw new Error(`${row.name} has no typed error`);
  return classOf(surface, row.typed.owner, row.typed.className) as never;
}

/** What a producer would throw for the row: the typed error, else an AdaptorError carrying the sentinel. */
export function thrownFor(row: SeedRow, surface: Surface): Error {
  if (row.typed) return row.typed.make(surface);
  const sentinel = sentinelOf(row, surface);
  if (!sentinel) throw new Error(`${row.name} has neither a sentinel nor a typed error`);
  return new surface.root.AdaptorError(`${row.name}: raised for the seed 002 table`, { sentinel });
}

/** `err` three causes deep: how a host that adds context with `{ cause }` hands it on. */
export function causeChain(thrown: unknown): Error {
  return new Error("a", { cause: new Error("b", { cause: new Error("c", { cause: thrown }) }) });
}

/** `err` nested among unrelated errors inside an AggregateError (itself inside another). */
export function aggregated(thrown: unknown): AggregateError {
  return new AggregateError(
    [new Error("unrelated"), new AggregateError([new TypeError("also unrelated"), thrown], "inner"), new RangeError("x")],
    "outer",
  );
}

/** The owner package's name for a leaf key, for test titles. */
export const packageName = (key: SurfaceKey): string => PACKAGE_OF[key];
