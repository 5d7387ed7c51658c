import { describe, expect, it } from "vitest";
import { InvalidDriverConfigError } from "../../errors/invalid-driver-config-error.js";
import { StructuredOutputUnsupportedError } from "../../errors/structured-output-unsupported-error.js";
import { HumanDecisionModeUnsupportedError } from "../../errors/human-decision-mode-unsupported-error.js";
import { PolicyCapabilityUnsupportedError } from "../../errors/policy-capability-unsupported-error.js";
import type { DriverEvent } from "../../spi/events.js";
import type { DriverSink } from "../../spi/driver.js";
import type { DriverDescriptor } from "../../spi/descriptor.js";
import { validateDriverConfig, type CommonDriverConfig } from "../config/common-config.js";
import { deepFreeze } from "../deep-freeze.js";
import { REFERENCE_DESCRIPTOR } from "../../testing/reference-driver.js";
import { OneShotCliDriver, type OneShotCliDriverPlan } from "./one-shot-cli-driver.js";

/** A one-shot CLI: reads the prompt from stdin, prints it back and a result line, and exits 3 for the prompt "fail". */
const CLI = `
let input = "";
process.stdin.on("data", (chunk) => (input += chunk));
process.stdin.on("end", () => {
  console.log("not json");
  console.log(JSON.stringify({ type: "text", text: input }));
  console.log(JSON.stringify({ type: "result", session: "chat-1", mark: process.env.ONE_SHOT_MARK ?? null }));
  process.exitCode = input === "fail" ? 3 : 0;
});
if (process.argv.includes("--crash")) {
  process.stdout.write('{"type":"text","te');
  process.stderr.write("segfault" + (process.env.ONE_SHOT_API_KEY ? " with key " + process.env.ONE_SHOT_API_KEY : ""));
  process.exit(139);
}
`;

const DESCRIPTOR: DriverDescriptor = deepFreeze<DriverDescriptor>({ ...REFERENCE_DESCRIPTOR, type: "one-shot-test" });

const PLAN: OneShotCliDriverPlan<CommonDriverConfig> = {
  descriptor: DESCRIPTOR,
  validate: (config) => validateDriverConfig("one-shot-test", config, {}),
  command: process.execPath,
  inheritedEnv: ["PATH"],
  outputSchemaRefusal: "the test CLI has none",
  args: (_config, request) => ["-e", CLI, ...(request.prompt === "crash" ? ["--", "--crash"] : [])],
  env: (request) => ({ ONE_SHOT_MARK: `mark:${request.model ?? "none"}` }),
  startTurn: ({ proc, request }) => {
    let text = "";
    let session: string | undefined;
    let mark: unknown;
    return {
      begin: () => {
        proc.writeText(request.prompt).catch(() => undefined);
        proc.closeStdin();
        return (value) => {
          if (value.type === "text") text = String(value.text);
          if (value.type !== "result") return false;
          session = String(value.session);
          mark = value.mark;
          return true;
        };
      },
      finish: (exit) => ({
        text: `${text}|${String(mark)}`,
        transcript: [{ kind: "assistant", text }],
        model: "",
        resumeId: session,
        ...(exit.code === 0 || request.prompt === "crash"
          ? {}
          : { failure: { reason: "agent_error", message: `exit ${String(exit.code)}` } }),
      }),
    };
  },
};

function sink(): DriverSink & { events: DriverEvent[] } {
  const events: DriverEvent[] = [];
  return { events, emit: (e) => void events.push(e), requestApproval: () => Promise.resolve({ outcome: "deny", reason: "test" }) };
}

describe("OneShotCliDriver", () => {
  it("spawns a process per run with the plan's env layer and makes the response: the prompt first, the session id as checkpoint, the exit", async () => {
    await using driver = new OneShotCliDriver(PLAN, {});
    const events = sink();
    const response = await driver.run({ runId: "r1", prompt: "hello", model: "m1" }, events, new AbortController().signal);
    expect(response.text).toBe("hello|mark:m1");
    expect(response.transcript).toEqual([
      { kind: "user", text: "hello" },
      { kind: "assistant", text: "hello" },
    ]);
    expect(response.checkpoint).toEqual({ resumeId: "chat-1" });
    expect(response.failure).toBeUndefined();
    expect("model" in response).toBe(false);
    expect(response.exit).toEqual({ code: 0, signal: null });
    expect(response.raw.stdout).toContain('"type":"result"');
    expect(events.events.filter((e) => e.type === "process").map((e) => (e as { kind: string }).kind)).toEqual(["spawn", "stdout"]);
  });

  it("a failure outcome is the response's failure and leaves the checkpoint out", async () => {
    await using driver = new OneShotCliDriver(PLAN, {});
    const response = await driver.run({ runId: "r1", prompt: "fail" }, sink(), new AbortController().signal);
    expect(response.failure).toEqual({ reason: "agent_error", message: "exit 3" });
    expect(response.checkpoint).toBeUndefined();
    expect(response.exit).toEqual({ code: 3, signal: null });
  });

  it("a crash (exit 139, no terminal line) is an agent_error with the exit code even when the outcome claims success", async () => {
    await using driver = new OneShotCliDriver(PLAN, {});
    const response = await driver.run({ runId: "r1", prompt: "crash" }, sink(), new AbortController().signal);
    expect(response.failure).toEqual({
      reason: "agent_error",
      message: "one-shot-test exited (code 139) without its terminal line: segfault",
      details: { exitCode: 139, exitSignal: null, stderrTail: "segfault" },
    });
    expect(response.checkpoint).toBeUndefined();
    expect(response.exit).toEqual({ code: 139, signal: null });
  });

  it("a credential the run hands the CLI (a credential-named variable of its environment) reads [redacted] in the failure's stderr tail and in raw", async () => {
    const key = "oneShotKey-QWERTY123456";
    await using driver = new OneShotCliDriver(PLAN, { env: { ONE_SHOT_API_KEY: key } });
    const response = await driver.run({ runId: "r1", prompt: "crash" }, sink(), new AbortController().signal);
    expect(response.failure?.message).toBe("one-shot-test exited (code 139) without its terminal line: segfault with key [redacted]");
    expect(response.raw.stderr).toBe("segfault with key [redacted]");
  });

  it("reports each explicitly set policy field by the plan's enforcement rule", async () => {
    const policy = { approvals: { permission: "auto_deny" as const, question: "inherit" as const } };
    await using declared = new OneShotCliDriver({ ...PLAN, enforcement: () => ({ mechanisms: ["approval"], detail: "the CLI asks" }) }, {});
    const reported = await declared.run({ runId: "r2", prompt: "hello", policy }, sink(), new AbortController().signal);
    expect(reported.enforcement).toEqual([
      { field: "approvals.permission", value: "auto_deny", enforced: true, mechanisms: ["approval"], detail: "the CLI asks" },
    ]);
    const none = await declared.run({ runId: "r3", prompt: "hello" }, sink(), new AbortController().signal);
    expect(none.enforcement).toEqual([]);
  });

  it("refuses before launch, spawning nothing, an explicitly set field without a rule, or one its rule leaves unenforced (undefined, or notEnforced without bestEffort)", async () => {
    const cases: [label: string, rule: OneShotCliDriverPlan<CommonDriverConfig>["enforcement"], reason: string][] = [
      ["no rule", undefined, "the driver declares no enforcement rule"],
      ["rule returns undefined", () => undefined, "the driver's enforcement rule does not enforce it"],
      ["rule says notEnforced", () => ({ notEnforced: "the test CLI has no sandbox" }), "the test CLI has no sandbox"],
    ];
    for (const [label, rule, reason] of cases) {
      await using driver = new OneShotCliDriver({ ...PLAN, ...(rule ? { enforcement: rule } : {}) }, {});
      const events = sink();
      const sandbox = await driver
        .run({ runId: "r1", prompt: "hello", policy: { sandbox: "read_only" } }, events, new AbortController().signal)
        .catch((e: unknown) => e);
      expect(sandbox, label).toBeInstanceOf(PolicyCapabilityUnsupportedError);
      expect(sandbox, label).toMatchObject({ driver: "one-shot-test", dimension: "sandbox", value: "read_only", reason });
      expect((sandbox as Error).message, label).toBe(`one-shot-test: policy sandbox="read_only" is not supported (${reason})`);
      const permission = await driver
        .run({ runId: "r2", prompt: "hello", policy: { approvals: { permission: "auto_deny" } } }, events, new AbortController().signal)
        .catch((e: unknown) => e);
      expect(permission, label).toBeInstanceOf(HumanDecisionModeUnsupportedError);
      expect(permission, label).toMatchObject({ driver: "one-shot-test", kind: "permission", mode: "auto_deny", reason });
      expect(events.events, label).toEqual([]);
    }
  });

  it("runs a value its rule leaves unenforced on best effort (the host's choice), reported not enforced", async () => {
    await using driver = new OneShotCliDriver({ ...PLAN, enforcement: () => ({ notEnforced: "accepted", bestEffort: true }) }, {});
    const response = await driver.run(
      { runId: "r1", prompt: "hello", policy: { sandbox: "read_only" } },
      sink(),
      new AbortController().signal,
    );
    expect(response.enforcement).toEqual([
      { field: "sandbox", value: "read_only", enforced: false, mechanisms: [], detail: "accepted", bestEffort: true },
    ]);
  });

  it("never throws for a bad config at construction; validateConfig and every run refuse it", async () => {
    await using driver = new OneShotCliDriver(PLAN, { idleMs: -5 });
    expect(() => driver.validateConfig()).toThrow(InvalidDriverConfigError);
    await expect(driver.run({ runId: "r1", prompt: "hello" }, sink(), new AbortController().signal)).rejects.toBeInstanceOf(
      InvalidDriverConfigError,
    );
  });

  it("refuses an outputSchema with StructuredOutputUnsupportedError naming the driver type, spawning nothing", async () => {
    await using driver = new OneShotCliDriver(PLAN, {});
    const events = sink();
    const run = driver.run({ runId: "r1", prompt: "hello", outputSchema: { type: "object" } }, events, new AbortController().signal);
    await expect(run).rejects.toMatchObject({ driver: "one-shot-test", reason: "the test CLI has none" });
    await expect(run).rejects.toBeInstanceOf(StructuredOutputUnsupportedError);
    expect(events.events).toEqual([]);
  });
});
