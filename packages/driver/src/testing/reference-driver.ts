import {
  HumanDecisionModeUnsupportedError,
  InvalidDriverConfigError,
  PolicyCapabilityUnsupportedError,
  StructuredOutputUnsupportedError,
} from "../errors/index.js";
import type { DriverDescriptor } from "../spi/descriptor.js";
import type { Driver, DriverSink } from "../spi/driver.js";
import type { DriverRequest } from "../spi/request.js";
import type { DriverResponse, TranscriptItem } from "../spi/response.js";
import { reportEnforcement } from "../kit/policy/report-enforcement.js";
import { APPROVAL_KINDS, approvalModes } from "../policy/approval-modes.js";
import type { ScriptedTurns, DriverFixture } from "./describe-driver-conformance.js";

/** Configuration of the {@link ReferenceDriver}. */
export interface ReferenceDriverConfig {
  /** Delay in ms between streamed pieces. Default 1. */
  readonly latencyMs?: number;
  /** Conversation store shared between driver instances (resume "in a new process"). Default: one per instance. */
  readonly sessions?: Map<string, string[]>;
}

function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null) {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}

/** What the {@link ReferenceDriver} declares; everything here is exercised by the conformance kit. */
export const REFERENCE_DESCRIPTOR: DriverDescriptor = deepFreeze<DriverDescriptor>({
  type: "reference",
  displayName: "Reference (scripted, no CLI)",
  capabilities: {
    sessions: { resume: true, fork: true },
    processReuse: false,
    structuredOutput: { native: true, prompt: false },
    skills: false,
    mcp: { transports: [] },
    policy: {
      sandbox: ["read_only", "workspace_write", "unrestricted"],
      webSearch: ["allow", "deny"],
      browser: [],
      activeExecutionTimeout: false,
    },
    approvals: { permission: ["inherit", "ask", "auto_approve", "auto_deny"], plan_review: ["inherit"], question: ["inherit"] },
    streaming: { textDeltas: true, thinking: false, toolCallArgs: true },
  },
});

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal.addEventListener("abort", onAbort, { once: true });
  });
}

/**
 * A scripted driver with no CLI behind it, passing the conformance kit; use it in your own tests
 * of code that takes a `Driver`. The prompt directs it:
 * - `TOOL <command>` → a `shell` tool call that asks one `permission` approval through the sink
 *   (each `TOOL` line of the prompt one call, in order)
 *   (the SDK applies approval modes), then a tool result (`ran <command>`, or an error when denied or
 *   under the `read_only` sandbox), then `Done`; each command that "ran" is listed in {@link toolRuns};
 *   stopped while it asks, it reports its partial output (usage `inputTokens` = the prompt's length);
 * - `SLOW` → runs until cancelled (`SLOW_MS <n>` → n ms);
 * - `FAIL <message>` → a classified `agent_error` failure with that message;
 * - `JSON <json>` → that text, and `structured` = the parsed value when the request has an output schema;
 * - anything else → `Reference reply #<turn>: <prompt>`, `turn` counting the session's turns, so a
 *   resumed conversation shows it saw the history.
 * Checkpoints are `ref-<n>` ids of an in-memory store; resuming an unknown id fails `resume_rejected`.
 * `response.enforcement` lists each explicitly set policy value (approvals: `approval`; the rest: the
 * scripted tools honour it, `cli_config`).
 */
export class ReferenceDriver implements Driver {
  /** {@link REFERENCE_DESCRIPTOR}. */
  readonly descriptor: DriverDescriptor = REFERENCE_DESCRIPTOR;
  /** The captured configuration (a frozen copy). */
  readonly config: ReferenceDriverConfig;
  readonly #sessions: Map<string, string[]>;
  readonly #toolRuns: string[] = [];
  static #seq = 0;

  constructor(config: ReferenceDriverConfig = {}) {
    this.config = Object.freeze({ ...config });
    this.#sessions = config.sessions ?? new Map();
  }

  /** The commands the scripted `shell` tool ran (approved, outside `read_only`), in order. */
  get toolRuns(): readonly string[] {
    return [...this.#toolRuns];
  }

  /** @throws InvalidDriverConfigError when `latencyMs` is not a finite number ≥ 0. */
  validateConfig(): void {
    const latency = this.config.latencyMs;
    if (latency !== undefined && !(typeof latency === "number" && Number.isFinite(latency) && latency >= 0)) {
      throw new InvalidDriverConfigError("reference", "latencyMs must be a finite number >= 0");
    }
  }

  /** One scripted `shell` call of `command`: asks, then runs it when approved; returns its output. */
  async #tool(
    command: string,
    request: DriverRequest,
    sink: DriverSink,
    signal: AbortSignal,
    transcript: TranscriptItem[],
  ): Promise<string> {
    const id = `ref_call_${++ReferenceDriver.#seq}`;
    const input = { command };
    sink.emit({ type: "tool-call", phase: "start", id, name: "shell" });
    sink.emit({ type: "tool-call", phase: "args", id, name: "shell", argsDelta: JSON.stringify(input) });
    sink.emit({ type: "tool-call", phase: "end", id, name: "shell", input });
    transcript.push({ kind: "tool-call", toolCallId: id, toolName: "shell", input });
    // Approval modes are applied by the SDK's broker (docs/design.md "Drivers"): every ask goes to the sink.
    const decision = await sink.requestApproval({
      kind: "permission",
      title: `shell: ${command}`,
      toolName: "shell",
      toolCallId: id,
      input,
      details: { command },
      inputEditable: true,
    });
    if (signal.aborted) {
      // Stopped while asking (a suspended turn): the model call that asked is reported.
      sink.partial?.({
        text: "",
        model: request.model ?? "reference-model",
        provider: "reference",
        usage: { inputTokens: request.prompt.length, outputTokens: 0 },
        transcript,
      });
      throw signal.reason;
    }
    const readOnly = request.policy?.sandbox === "read_only";
    const ok = decision.outcome === "approve" && !readOnly;
    const edited = ok ? (decision.updatedInput as { command?: unknown } | undefined)?.command : undefined;
    const ran = typeof edited === "string" ? edited : command;
    if (ok) this.#toolRuns.push(ran);
    const output = ok
      ? `ran ${ran}`
      : decision.outcome === "approve"
        ? "blocked by the read_only sandbox"
        : `denied: ${decision.outcome === "deny" ? decision.reason : decision.choice}`;
    sink.emit({ type: "tool-result", id, name: "shell", output, isError: !ok });
    transcript.push({ kind: "tool-result", toolCallId: id, toolName: "shell", text: output, isError: !ok });
    return output;
  }

  /** Runs one scripted turn; refuses undeclared capabilities before doing anything. */
  async run(request: DriverRequest, sink: DriverSink, signal: AbortSignal): Promise<DriverResponse> {
    signal.throwIfAborted();
    this.validateConfig();
    this.#refuseUndeclared(request);
    const latency = this.config.latencyMs ?? 1;
    const prompt = request.prompt;
    const transcript: TranscriptItem[] = [{ kind: "user", text: prompt }];
    const raw = { stdout: "", stderr: "" };

    let history: string[] = [];
    if (request.session) {
      const known = this.#sessions.get(request.session.resumeId);
      if (!known) {
        return {
          text: "",
          transcript,
          raw,
          failure: {
            reason: "resume_rejected",
            message: `unknown session ${request.session.resumeId}`,
            details: { resumeId: request.session.resumeId },
          },
        };
      }
      history = [...known];
    }
    sink.emit({ type: "notice", kind: "lifecycle", message: "turn started" });

    const fail = /^FAIL\b\s*(.*)$/s.exec(prompt);
    if (fail) {
      await sleep(latency, signal);
      return { text: "", transcript, raw, failure: { reason: "agent_error", message: fail[1] || "reference failure" } };
    }
    const slow = /\bSLOW(?:_MS\s+(\d+))?\b/.exec(prompt);
    if (slow) await sleep(slow[1] !== undefined ? Number(slow[1]) : 3_600_000, signal);

    let text: string;
    let structured: unknown;
    const tools = [...prompt.matchAll(/^TOOL\s+(.+)$/gm)].map((match) => match[1]!.trim());
    const json = /^JSON\s+(.+)$/s.exec(prompt);
    if (tools.length > 0) {
      let output = "";
      for (const command of tools) output = await this.#tool(command, request, sink, signal, transcript);
      text = `Done: ${output}`;
    } else if (json?.[1] !== undefined) {
      text = json[1].trim();
      if (request.outputSchema) structured = JSON.parse(text) as unknown;
    } else {
      text = `Reference reply #${history.length + 1}: ${prompt}`;
    }
    for (const piece of text.match(/.{1,16}/gs) ?? []) {
      await sleep(latency, signal);
      sink.emit({ type: "text-delta", text: piece });
    }
    transcript.push({ kind: "assistant", text });
    history.push(prompt);
    const resumeId = request.session && !request.session.fork ? request.session.resumeId : `ref-${++ReferenceDriver.#seq}`;
    this.#sessions.set(resumeId, history);
    return {
      text,
      ...(structured !== undefined ? { structured } : {}),
      model: request.model ?? "reference-model",
      provider: "reference",
      usage: { inputTokens: prompt.length, outputTokens: text.length },
      transcript,
      raw,
      checkpoint: { resumeId },
      enforcement: reportEnforcement(request.policy, (field) =>
        field.startsWith("approvals.")
          ? { mechanisms: ["approval"], detail: "every ask goes to the sink" }
          : { mechanisms: ["cli_config"], detail: "the scripted tools honour it" },
      ),
    };
  }

  #refuseUndeclared(request: DriverRequest): void {
    const { type, capabilities: caps } = this.descriptor;
    const policy = request.policy;
    if (policy?.sandbox !== undefined && !caps.policy.sandbox.includes(policy.sandbox))
      throw new PolicyCapabilityUnsupportedError(type, "sandbox", policy.sandbox);
    if (policy?.webSearch !== undefined && !caps.policy.webSearch.includes(policy.webSearch))
      throw new PolicyCapabilityUnsupportedError(type, "webSearch", policy.webSearch);
    if (policy?.browser !== undefined && !caps.policy.browser.includes(policy.browser))
      throw new PolicyCapabilityUnsupportedError(type, "browser", policy.browser);
    if (policy?.activeExecutionTimeoutMs !== undefined && !caps.policy.activeExecutionTimeout) {
      throw new PolicyCapabilityUnsupportedError(type, "activeExecutionTimeoutMs", String(policy.activeExecutionTimeoutMs));
    }
    // Every kind, the ones the descriptor leaves out too (an absent `elicitation` is `["inherit"]`).
    for (const kind of APPROVAL_KINDS) {
      const mode = policy?.approvals?.[kind];
      if (mode !== undefined && !approvalModes(caps, kind).includes(mode)) throw new HumanDecisionModeUnsupportedError(type, kind, mode);
    }
    if (request.outputSchema && !caps.structuredOutput.native && !caps.structuredOutput.prompt) {
      throw new StructuredOutputUnsupportedError(type, "no structured output");
    }
  }
}

/** The scripted turns of the {@link ReferenceDriver}, for `describeDriverConformance`. */
export const REFERENCE_SCRIPTS: ScriptedTurns<DriverFixture> = Object.freeze({
  // Usage: the prompt's and the reply's lengths ("Reference reply #1: hello reference").
  text: () => ({
    request: { prompt: "hello reference" },
    expectText: "hello reference",
    expectUsage: { inputTokens: 15, outputTokens: 35 },
  }),
  followUp: () => ({ request: { prompt: "second turn" }, expectText: /#2: second turn/ }),
  toolApproval: (fixture: DriverFixture) => ({
    request: { prompt: "TOOL echo hi" },
    toolRan: () => fixture.driver instanceof ReferenceDriver && fixture.driver.toolRuns.includes("echo hi"),
  }),
  slow: () => ({ request: { prompt: "SLOW" } }),
  failing: () => ({ request: { prompt: "FAIL scripted failure 400" }, expectMessage: "scripted failure 400" }),
  structured: () => ({
    request: {
      prompt: 'JSON {"answer":"forty-two"}',
      outputSchema: { type: "object", properties: { answer: { type: "string" } }, required: ["answer"] },
    },
    expectValue: { answer: "forty-two" },
  }),
});
