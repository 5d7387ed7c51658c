// Seed 002 "Public errors", table by table: every row's identity, its root/leaf sameness, matching
// through wrapping, typed discovery, non-collision with the other rows, and survival across two
// copies of the packages in one process.
import { existsSync, readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  AdaptorError,
  Agent,
  ApprovalRequest,
  DriverError,
  ErrAgentClosed,
  ErrApprovalKindMismatch,
  ErrApprovalUnavailable,
  ErrRunCancelled,
  ErrApprovalExpired,
  ErrApprovalResolved,
  ErrCode,
  ErrInvalidDriverConfig,
  ErrInvalidOutputSchema,
  ErrInvalidPolicy,
  ErrSkillMaterializationFailed,
  ErrSkillSourceMissing,
  ErrThreadIncompatible,
  InvalidDriverConfigError,
  InvalidOutputSchemaError,
  InvalidPolicyError,
  Result,
  RunError,
  SessionConfigFingerprintError,
  SkillMaterializationError,
  errorCode,
  findError,
  isError,
  type Sentinel,
} from "adaptor";
import { isSentinel, walkError } from "@adaptor/errors";
import { loadSecondCopy, type Copy } from "./support/copy.js";
import { fakeDriver, rejectionOf } from "./support/fake-driver.js";
import {
  SEED_ROWS,
  aggregated,
  causeChain,
  classOf,
  driverConfigCause,
  materializerCause,
  packageName,
  schemaParseFailure,
  sentinelOf,
  thrownFor,
  typedClassOf,
  type SeedRow,
} from "./support/seed-002.js";
import { exported, original, type Surface } from "./support/surface.js";

type TypedClass = ReturnType<typeof typedClassOf>;

const TABLES = [...new Set(SEED_ROWS.map((row) => row.table))];

/** Every distinct sentinel the tables name. */
const SENTINELS: readonly Sentinel[] = [
  ...new Set(SEED_ROWS.map((row) => sentinelOf(row, original)).filter((s): s is Sentinel => s !== undefined)),
];
/** Every distinct typed class the tables name. */
const TYPED_CLASSES: readonly TypedClass[] = [...new Set(SEED_ROWS.filter((row) => row.typed).map((row) => typedClassOf(row, original)))];

function title(row: SeedRow): string {
  const matches = "matches through cause chain and AggregateError";
  const find = row.typed ? `, findError(${row.typed.className})` : "";
  if (row.reason) return `${row.name}: RunError with reason "${row.reason}" ${matches}${find}`;
  if (row.root && row.leaf) {
    const leafName = row.leaf.name === row.root ? "" : ` ${row.leaf.name}`;
    return `${row.name}: root === ${packageName(row.leaf.owner)}${leafName}, ${matches}${find}`;
  }
  if (row.root) return `${row.name}: root-owned, ${matches}`;
  if (row.typed && (row.table === "Driver extension errors" || !row.leaf)) {
    const what = row.leaf ? `${row.leaf.name} ${matches}` : `no sentinel, found through cause chain and AggregateError`;
    return `${row.name}: ${what}${find}, root re-exports the same class`;
  }
  return `${row.name}: ${matches}${find}`;
}

/** The error `fn` throws (fails the test if it returns). */
function thrownBy(fn: () => void): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error("expected a throw");
}

/** Reads a documented field off a typed error found with findError. */
const field = (err: Error, name: string): unknown => (err as unknown as Record<string, unknown>)[name];

describe("seed 002 public errors", () => {
  it("covers every row of the tables in scope", () => {
    const count = (table: string): number => SEED_ROWS.filter((row) => row.table === table).length;
    expect(Object.fromEntries(TABLES.map((table) => [table, count(table)]))).toEqual({
      "Agent lifecycle": 1,
      "Root business failures": 5,
      "Root pre-invocation errors": 14,
      "Host-defined Tool errors": 3,
      "Root Thread errors": 8,
      "Approval responder errors": 4,
      "threadstore errors": 3,
      "Driver extension errors": 7,
      "A2A client errors": 8,
      "Hosttool errors": 4,
    });
    // 1 + 5 + 14 + 3 + 8 + 4 + 3 + 6 + 3 distinct identities; the driver extension rows reuse
    // pre-invocation ones; ProtocolError, StreamRecoveryError and DelegationError have none of their own.
    expect(SENTINELS).toHaveLength(47);
    expect(new Set(SENTINELS.map((s) => s.id)).size).toBe(47);
    for (const s of SENTINELS) {
      expect(isSentinel(s), s.id).toBe(true);
      expect(Object.isFrozen(s), s.id).toBe(true);
    }
  });

  for (const table of TABLES) {
    describe(table, () => {
      for (const row of SEED_ROWS.filter((r) => r.table === table)) {
        it(title(row), () => {
          const sentinel = sentinelOf(row, original);
          if (row.root && row.leaf) {
            expect(exported(original, "root", row.root)).toBe(exported(original, row.leaf.owner, row.leaf.name));
          }
          if (row.typed?.inRoot && row.typed.owner !== "root") {
            expect(classOf(original, "root", row.typed.rootName ?? row.typed.className)).toBe(
              classOf(original, row.typed.owner, row.typed.className),
            );
          }

          const thrown = thrownFor(row, original);
          if (sentinel) {
            expect(isError(thrown, sentinel)).toBe(true);
            expect(isError(causeChain(thrown), sentinel)).toBe(true);
            expect(isError(aggregated(thrown), sentinel)).toBe(true);
            expect(isError(causeChain(aggregated(causeChain(thrown))), sentinel)).toBe(true);
            // Control: the same wrapping around something else does not match.
            expect(isError(causeChain(new Error(sentinel.message)), sentinel)).toBe(false);
            expect(isError(aggregated(new AdaptorError(sentinel.message)), sentinel)).toBe(false);
          }

          if (row.typed) {
            const Typed = typedClassOf(row, original);
            expect(findError(thrown, Typed)).toBe(thrown);
            expect(findError(causeChain(thrown), Typed)).toBe(thrown);
            expect(findError(aggregated(thrown), Typed)).toBe(thrown);
            expect(findError(causeChain(new Error("unrelated")), Typed)).toBeUndefined();
            expect(thrown).toBeInstanceOf(Typed);
            expect(thrown).toBeInstanceOf(AdaptorError);
            expect(thrown.name).toBe(row.typed.className);
            const found = findError(causeChain(thrown), Typed);
            if (!found) throw new Error("unreachable: asserted above");
            for (const [name, value] of Object.entries(row.typed.fields)) {
              expect(field(found, name), `${row.typed.className}.${name}`).toEqual(value);
            }
            // A typed error with a sentinel carries it as its class's own (not per call site).
            if (!row.reason) expect((Typed as { sentinel?: unknown }).sentinel).toBe(sentinel);
          }

          if (row.reason) {
            const runError = findError(causeChain(thrown), RunError);
            expect(runError).toBe(thrown);
            expect(runError?.reason).toBe(row.reason);
            expect(runError?.result).toBeInstanceOf(Result);
            expect(runError?.result.text).toBe("I started reviewing the diff");
            expect(runError?.result.usage).toEqual({ inputTokens: 1200, outputTokens: 48 });
            expect(runError?.result.raw().stdout).toContain("error_during_execution");
          }
        });

        it(`${row.name}: matches no other identity of the tables`, () => {
          const err = causeChain(thrownFor(row, original));
          const own = sentinelOf(row, original);
          const allowed = new Set<Sentinel | undefined>([
            own,
            ...(row.alsoMatches ?? []).map((name) => exported(original, "root", name) as Sentinel),
          ]);
          const matched = SENTINELS.filter((s) => isError(err, s)).map((s) => s.id);
          expect(matched.sort()).toEqual(
            [...allowed]
              .filter((s) => s !== undefined)
              .map((s) => s.id)
              .sort(),
          );
          const ownClass = row.typed ? typedClassOf(row, original) : undefined;
          for (const Other of TYPED_CLASSES) {
            if (Other === ownClass) continue;
            expect(findError(err, Other), `${row.name} found as ${String(Other.brand.description)}`).toBeUndefined();
          }
        });
      }
    });
  }

  describe("documented relations and non-relations", () => {
    it("ErrApprovalExpired also matches ErrApprovalResolved, but not the reverse", () => {
      const expired = new AdaptorError("approval expired before the response", { sentinel: ErrApprovalExpired });
      const resolved = new AdaptorError("approval already answered", { sentinel: ErrApprovalResolved });
      expect(isError(causeChain(expired), ErrApprovalResolved)).toBe(true);
      expect(isError(causeChain(expired), ErrApprovalExpired)).toBe(true);
      expect(isError(causeChain(resolved), ErrApprovalResolved)).toBe(true);
      expect(isError(causeChain(resolved), ErrApprovalExpired)).toBe(false);
      expect(isError(ErrApprovalExpired, ErrApprovalResolved)).toBe(true);
      expect(isError(ErrApprovalResolved, ErrApprovalExpired)).toBe(false);
    });

    const pairs: (readonly [string, Sentinel, string, Sentinel])[] = [
      ["root ErrThreadBusy", original.root.ErrThreadBusy, "threadstore ErrBusy", original.threadstore.ErrBusy],
      ["root ErrThreadLeaseLost", original.root.ErrThreadLeaseLost, "threadstore ErrLeaseLost", original.threadstore.ErrLeaseLost],
      [
        "root ErrThreadAlreadyExists",
        original.root.ErrThreadAlreadyExists,
        "threadstore ErrAlreadyExists",
        original.threadstore.ErrAlreadyExists,
      ],
      ["ErrInvalidPolicy", original.root.ErrInvalidPolicy, "ErrPolicyViolation", original.root.ErrPolicyViolation],
      ["ErrRunCancelled", original.root.ErrRunCancelled, "ErrAgentClosed", original.root.ErrAgentClosed],
      ["ErrApprovalTimeout", original.root.ErrApprovalTimeout, "ErrApprovalExpired", original.root.ErrApprovalExpired],
      ["ErrApprovalDenied", original.root.ErrApprovalDenied, "ErrApprovalResolved", original.root.ErrApprovalResolved],
      ["ErrInvalidMCPConfig", original.root.ErrInvalidMCPConfig, "ErrInvalidDriverConfig", original.root.ErrInvalidDriverConfig],
      ["ErrMCPUnsupported", original.root.ErrMCPUnsupported, "ErrMCPTransportUnsupported", original.root.ErrMCPTransportUnsupported],
      ["ErrSkillNotFound", original.root.ErrSkillNotFound, "ErrThreadNotFound", original.root.ErrThreadNotFound],
      ["tool ErrInvalidInput", original.tool.ErrInvalidInput, "tool ErrInvalidOutput", original.tool.ErrInvalidOutput],
      ["tool ErrInvalidDefinition", original.tool.ErrInvalidDefinition, "ErrInvalidDriverConfig", original.root.ErrInvalidDriverConfig],
    ];
    pairs.push(
      ["ErrA2ANotFound", original.root.ErrA2ANotFound, "ErrThreadNotFound", original.root.ErrThreadNotFound],
      ["ErrA2AUnsupported", original.root.ErrA2AUnsupported, "ErrMCPUnsupported", original.root.ErrMCPUnsupported],
      ["ErrA2AProtocol", original.root.ErrA2AProtocol, "ErrA2AInvalidAgentCard", original.root.ErrA2AInvalidAgentCard],
      ["ErrA2AUnauthorized", original.root.ErrA2AUnauthorized, "ErrA2AUntrustedOrigin", original.root.ErrA2AUntrustedOrigin],
    );
    const pairRows = pairs.map(([aName, a, bName, b]) => ({ aName, a, bName, b }));
    it.each(pairRows)("$aName and $bName are different identities, in both directions", ({ a, b }) => {
      expect(a).not.toBe(b);
      expect(a.id).not.toBe(b.id);
      expect(isError(causeChain(new AdaptorError("x", { sentinel: a })), b)).toBe(false);
      expect(isError(causeChain(new AdaptorError("x", { sentinel: b })), a)).toBe(false);
      expect(isError(a, b)).toBe(false);
      expect(isError(b, a)).toBe(false);
    });

    it("ErrEventLogLocked (a second writer refused) is the leaf's object in the root and matches none of the seed identities", () => {
      expect(original.root.ErrEventLogLocked).toBe(original.sessionrecorder.ErrEventLogLocked);
      expect(original.root.EventLogLockedError).toBe(original.sessionrecorder.EventLogLockedError);
      const err = new original.sessionrecorder.EventLogLockedError("run-42", {
        pid: 4242,
        hostname: "build-1",
        acquiredAt: "2026-01-01T00:00:00.000Z",
      });
      expect(isError(causeChain(err), original.root.ErrEventLogLocked)).toBe(true);
      expect(findError(aggregated(err), original.root.EventLogLockedError)?.holder?.pid).toBe(4242);
      expect(SENTINELS.filter((s) => isError(causeChain(err), s))).toEqual([]);
      expect(isError(causeChain(err), original.threadstore.ErrBusy)).toBe(false);
    });

    it("a store's BusyError is not the root ErrThreadBusy until the Thread API translates it", () => {
      const storeError = new original.threadstore.BusyError("thread:acme/issue-42");
      expect(isError(storeError, original.threadstore.ErrBusy)).toBe(true);
      expect(isError(storeError, original.root.ErrThreadBusy)).toBe(false);
      const translated = new AdaptorError("thread acme/issue-42 is busy", {
        sentinel: original.root.ErrThreadBusy,
        cause: storeError,
      });
      expect(isError(translated, original.root.ErrThreadBusy)).toBe(true);
      expect(findError(causeChain(translated), original.threadstore.BusyError)?.target).toBe("thread:acme/issue-42");
    });

    it("InvalidDriverConfigError keeps its cause on the chain and joins the cause's identities", () => {
      const cause = driverConfigCause(original);
      const err = new InvalidDriverConfigError("claude", "extraArgs may not set --output-format", { cause });
      expect(err.cause).toBe(cause);
      expect(findError(causeChain(err), DriverError)).toBe(cause);
      expect(errorCode(aggregated(err))).toBe(ErrCode.Invalid);
      const policyCause = new InvalidPolicyError("claude", "sandbox", "wide_open");
      const joined = new InvalidDriverConfigError("claude", "bad policy", { cause: policyCause });
      expect(isError(causeChain(joined), ErrInvalidDriverConfig)).toBe(true);
      expect(isError(causeChain(joined), ErrInvalidPolicy)).toBe(true);
      expect(findError(causeChain(joined), InvalidPolicyError)).toBe(policyCause);
    });

    it("InvalidOutputSchemaError keeps its cause on the chain", () => {
      const cause = schemaParseFailure();
      const err = new InvalidOutputSchemaError("not JSON", { cause });
      expect(err.cause).toBe(cause);
      expect(walkError(causeChain(err), (node) => node === cause)).toBe(true);
      expect(walkError(aggregated(err), (node) => node === cause)).toBe(true);
      expect(isError(causeChain(err), ErrInvalidOutputSchema)).toBe(true);
      const joined = new InvalidOutputSchemaError("recursive $ref", { cause: new InvalidPolicyError("claude", "x", "y") });
      expect(isError(joined, ErrInvalidOutputSchema)).toBe(true);
      expect(isError(joined, ErrInvalidPolicy)).toBe(true);
    });

    it("SkillMaterializationError matches its sentinel while keeping the materializer cause", () => {
      const cause = materializerCause(original);
      const err = new SkillMaterializationError("code-review", "code-review-3f2a", cause);
      expect(err.cause).toBe(cause);
      expect(isError(causeChain(err), ErrSkillMaterializationFailed)).toBe(true);
      expect(findError(causeChain(err), DriverError)).toBe(cause);
      expect(findError(causeChain(err), DriverError)?.code).toBe(ErrCode.Permission);
      const missing = new AdaptorError("source folder vanished", { sentinel: ErrSkillSourceMissing });
      const chained = new SkillMaterializationError("code-review", "code-review-3f2a", missing);
      expect(isError(aggregated(chained), ErrSkillMaterializationFailed)).toBe(true);
      expect(isError(aggregated(chained), ErrSkillSourceMissing)).toBe(true);
    });

    it("A2AProtocolError matches its cause's identity, or ErrA2AProtocol when it has no cause", () => {
      const bare = new original.a2a.ProtocolError({ op: "message/stream", reason: "stream event without a payload" });
      expect(SENTINELS.filter((s) => isError(causeChain(bare), s)).map((s) => s.id)).toEqual(["adaptor.a2a.Protocol"]);
      const notFound = new AdaptorError("no such task", { sentinel: original.root.ErrA2ANotFound });
      const withCause = new original.root.A2AProtocolError({ op: "tasks/get", reason: "task not found", cause: notFound });
      expect(withCause.cause).toBe(notFound);
      expect(SENTINELS.filter((s) => isError(aggregated(withCause), s)).map((s) => s.id)).toEqual(["adaptor.a2a.NotFound"]);
      expect(findError(causeChain(withCause), original.root.A2AProtocolError)?.op).toBe("tasks/get");
    });

    it("A2AStreamRecoveryError has no sentinel and unwraps the recovery cause; DelegationError has neither sentinel nor cause", () => {
      const cause = new original.a2a.ProtocolError({
        op: "tasks/resubscribe",
        reason: "unauthorized",
        cause: new AdaptorError("HTTP 401", { sentinel: original.a2a.ErrUnauthorized }),
      });
      const lost = new original.root.A2AStreamRecoveryError("task-9", cause, 2);
      expect(lost.sentinels).toEqual([]);
      expect(lost.cause).toBe(cause);
      expect(isError(causeChain(lost), original.root.ErrA2AUnauthorized)).toBe(true);
      expect(findError(causeChain(lost), original.root.A2AProtocolError)).toBe(cause);
      const delegationError = new original.root.DelegationError({
        code: "unreachable",
        message: "the remote agent is unreachable",
        retryable: true,
      });
      expect(delegationError.sentinels).toEqual([]);
      expect(delegationError.cause).toBeUndefined();
      expect(SENTINELS.filter((s) => isError(delegationError, s))).toEqual([]);
      expect(delegationError).toMatchObject({ remoteStatus: undefined, metadata: {} });
    });

    it("SessionConfigFingerprintError has no sentinel and stays discoverable inside an ErrThreadIncompatible chain", () => {
      expect(SessionConfigFingerprintError.sentinel).toBeUndefined();
      const fingerprint = new SessionConfigFingerprintError({
        path: "config.env[*]",
        type: "function",
        kind: "function",
        why: "functions cannot be canonicalised",
      });
      expect(fingerprint.sentinels).toEqual([]);
      expect(SENTINELS.filter((s) => isError(fingerprint, s))).toEqual([]);
      const incompatible = new AdaptorError("thread acme/issue-42 is incompatible", {
        sentinel: ErrThreadIncompatible,
        cause: fingerprint,
      });
      expect(isError(causeChain(incompatible), ErrThreadIncompatible)).toBe(true);
      const found = findError(causeChain(incompatible), SessionConfigFingerprintError);
      expect(found).toBe(fingerprint);
      expect(found?.path).toBe("config.env[*]");
      expect(found?.message).not.toContain("secret");
    });
  });
});

describe("identities as the SDK raises them", () => {
  const request = (kind: "permission" | "question"): InstanceType<typeof ApprovalRequest> =>
    new ApprovalRequest({
      id: "01936f5e-8c2a-7b4d-9e1f-000000000001",
      runId: "01936f5e-8c2a-7b4d-9e1f-2a3b4c5d6e7f",
      kind,
      title: kind === "question" ? "Which branch?" : "Bash: npm test",
      createdAt: new Date(0),
      attempt: 1,
    });

  it("ErrApprovalUnavailable: a request without a run-owned responder refuses deny()", () => {
    const err = thrownBy(() => request("permission").deny("no"));
    expect(isError(err, ErrApprovalUnavailable)).toBe(true);
    expect(isError(err, ErrApprovalResolved)).toBe(false);
  });

  it("ErrApprovalKindMismatch: approve() on a question and answer() on a permission", () => {
    expect(
      isError(
        thrownBy(() => request("question").approve()),
        ErrApprovalKindMismatch,
      ),
    ).toBe(true);
    expect(
      isError(
        thrownBy(() => request("permission").answer("main")),
        ErrApprovalKindMismatch,
      ),
    ).toBe(true);
  });

  it("ErrAgentClosed: a run started after close() rejects with it, and it is not ErrRunCancelled", async () => {
    const agent = new Agent(fakeDriver(async () => ({})));
    await agent.close();
    const err = await rejectionOf(agent.run("hello"));
    expect(isError(err, ErrAgentClosed)).toBe(true);
    expect(isError(err, ErrRunCancelled)).toBe(false);
    expect(findError(err, RunError)).toBeUndefined();
  });
});

describe("identity survives two copies of a package in one process", () => {
  let copy: Copy;
  let second: Surface;

  beforeAll(async () => {
    copy = await loadSecondCopy();
    second = copy.surface;
  });
  afterAll(async () => {
    await copy?.dispose();
  });

  it("the second copy is a separate bundle with its own classes and functions", () => {
    expect(existsSync(copy.file)).toBe(true);
    const code = readFileSync(copy.file, "utf8");
    expect(code).not.toMatch(/from\s*["'](adaptor|@adaptor\/[^"']+)["']/);
    expect(code).toContain("adaptor.error.");
    expect(second.errors.AdaptorError).not.toBe(AdaptorError);
    expect(second.errors.isError).not.toBe(isError);
    expect(second.errors.findError).not.toBe(findError);
    expect(second.root.RunError).not.toBe(RunError);
    expect(second.driver.InvalidPolicyError).not.toBe(InvalidPolicyError);
    // Inside the copy, root and leaf are still one identity.
    expect(second.root.InvalidPolicyError).toBe(second.driver.InvalidPolicyError);
    expect(second.root.ErrInvalidMCPConfig).toBe(second.mcp.ErrInvalidConfig);
  });

  it("the copy's sentinels are the original objects (one registry under Symbol.for per process)", () => {
    for (const row of SEED_ROWS) {
      const mine = sentinelOf(row, original);
      expect(sentinelOf(row, second), row.name).toBe(mine);
    }
    expect(second.errors.sentinel("adaptor.ThreadBusy", "another text")).toBe(original.root.ErrThreadBusy);
  });

  for (const row of SEED_ROWS) {
    it(`${row.name}: an error made by the copy matches the original identity, and the reverse`, () => {
      const fromCopy = thrownFor(row, second);
      const fromOriginal = thrownFor(row, original);
      const mine = sentinelOf(row, original);
      const theirs = sentinelOf(row, second);
      if (mine && theirs) {
        expect(isError(causeChain(fromCopy), mine)).toBe(true);
        expect(isError(aggregated(fromCopy), mine)).toBe(true);
        expect(second.errors.isError(causeChain(fromOriginal), theirs)).toBe(true);
        expect(second.errors.isError(aggregated(fromOriginal), theirs)).toBe(true);
      }
      const allowed = new Set([mine?.id, ...(row.alsoMatches ?? []).map((n) => (exported(original, "root", n) as Sentinel).id)]);
      expect(SENTINELS.filter((s) => !allowed.has(s.id) && isError(causeChain(fromCopy), s)).map((s) => s.id)).toEqual([]);

      if (row.typed) {
        const Mine = typedClassOf(row, original);
        const Theirs = typedClassOf(row, second);
        expect(Theirs).not.toBe(Mine);
        expect(Theirs.brand).toBe(Mine.brand);
        expect(findError(causeChain(fromCopy), Mine)).toBe(fromCopy);
        expect(findError(aggregated(fromCopy), Mine)).toBe(fromCopy);
        expect(fromCopy instanceof Mine).toBe(true);
        expect(second.errors.findError(causeChain(fromOriginal), Theirs)).toBe(fromOriginal);
        expect(fromOriginal instanceof Theirs).toBe(true);
        for (const [name, value] of Object.entries(row.typed.fields)) {
          expect(field(fromCopy, name), `${row.typed.className}.${name}`).toEqual(value);
        }
      }
      expect(fromCopy instanceof AdaptorError).toBe(true);
      expect(fromOriginal instanceof second.errors.AdaptorError).toBe(true);
      expect(fromCopy.name).toBe(fromOriginal.name);
    });
  }

  it("causes made by the copy stay findable with the original classes", () => {
    const fromCopy = thrownFor(SEED_ROWS.find((row) => row.name === "ErrSkillMaterializationFailed") ?? SEED_ROWS[0]!, second);
    expect(findError(causeChain(fromCopy), DriverError)?.code).toBe(ErrCode.Permission);
    expect(errorCode(fromCopy)).toBe(ErrCode.Permission);
    const runError = findError(
      aggregated(
        thrownFor(
          SEED_ROWS.find((row) => row.reason === "agent_error")!,
          second,
        ),
      ),
      RunError,
    );
    expect(runError?.reason).toBe("agent_error");
    expect(runError?.result.text).toBe("I started reviewing the diff");
    expect(isError(runError, original.root.ErrAgentFailed)).toBe(true);
  });
});
