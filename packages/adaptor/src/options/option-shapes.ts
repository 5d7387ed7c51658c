import { isAbsolute } from "node:path";
import { InvalidOptionError, optionChecks as is, type OptionCheck, type OptionShape } from "@adaptor/errors";
import { PEER_OPTIONS } from "@adaptor/driver";
import { PEER_BUDGET_HINTS, PEER_HOOK_HINTS } from "./peer-names.js";
import { matcherProblem } from "../hooks/tool-matcher.js";

/** Accepts any value: the option is checked later by its own step, with its own typed error. */
const checkedLater: OptionCheck = () => undefined;

/** `{ append: text }` with a non-empty `append` and no other key. */
const appendedPrompt: OptionCheck = (value, field, subject) => {
  is.shape({ append: is.string({ nonEmpty: true }) })(value, field, subject);
  if ((value as { append?: unknown }).append === undefined)
    throw new InvalidOptionError({ subject, field: `${field}.append`, reason: "is required" });
};

/** A subagent definition: non-empty `description` and `prompt`, optional `tools` and `model`. */
const subagent: OptionCheck = (value, field, subject) => {
  is.shape({
    description: is.string({ nonEmpty: true }),
    prompt: is.string({ nonEmpty: true }),
    tools: is.arrayOf(is.string({ nonEmpty: true }), "an array of tool names"),
    model: is.string({ nonEmpty: true }),
  })(value, field, subject);
  for (const key of ["description", "prompt"] as const) {
    if ((value as Record<string, unknown>)[key] === undefined)
      throw new InvalidOptionError({ subject, field: `${field}.${key}`, reason: "is required" });
  }
};

/** A tool hook: a function, or `{ matcher, hook }` with a valid matcher and a function. */
const toolHook: OptionCheck = (value, field, subject) => {
  if (typeof value === "function") return;
  if (typeof value !== "object" || value === null || Array.isArray(value))
    throw new InvalidOptionError({ subject, field, reason: "must be a function, { matcher, hook }, or an array of them" });
  is.shape({ matcher: is.string(), hook: is.func() })(value, field, subject);
  const { matcher, hook } = value as { matcher?: string; hook?: unknown };
  if (hook === undefined) throw new InvalidOptionError({ subject, field: `${field}.hook`, reason: "is required" });
  if (matcher === undefined) throw new InvalidOptionError({ subject, field: `${field}.matcher`, reason: "is required" });
  const problem = matcherProblem(matcher);
  if (problem !== undefined) throw new InvalidOptionError({ subject, field: `${field}.matcher`, reason: problem });
};

/** A tool hook option: one {@link toolHook}, or a non-empty array of them (matcher groups, in order). */
const toolHooks: OptionCheck = (value, field, subject) => {
  if (!Array.isArray(value)) return toolHook(value, field, subject);
  if (value.length === 0)
    throw new InvalidOptionError({ subject, field, reason: "must hold at least one hook or { matcher, hook } (leave it unset for none)" });
  value.forEach((entry: unknown, index) => toolHook(entry, `${field}[${index}]`, subject));
};

/** A non-empty absolute path. */
const absolutePath: OptionCheck = (value, field, subject) => {
  is.string({ nonEmpty: true })(value, field, subject);
  if (!isAbsolute(value as string)) throw new InvalidOptionError({ subject, field, reason: "must be an absolute path" });
};

/**
 * The Agent's host tools (each definition is checked before each run, ErrInvalidDefinition). The
 * Claude Agent SDK's `tools` (names of built-ins, or `{ type: "preset" }`) is refused at once with
 * what to write here.
 */
const hostTools: OptionCheck = (value, field, subject) => {
  const peer = `here tools are host tools (defineTool); ${PEER_OPTIONS.tools!.hint}`;
  if (typeof value === "object" && value !== null && !Array.isArray(value) && (value as { type?: unknown }).type === "preset")
    throw new InvalidOptionError({ subject, field, reason: `is a preset of built-in tools: ${peer}` });
  is.arrayOf((entry, at) => {
    if (typeof entry === "string") throw new InvalidOptionError({ subject, field: at, reason: `is a built-in tool's name: ${peer}` });
  }, "an array of tools (defineTool)")(value, field, subject);
};

/** Options of both the Agent (defaults) and each call; see `SharedRunOptions`. */
const SHARED: OptionShape = {
  model: is.string({ nonEmpty: true }),
  checkpointFiles: is.anyOf(
    "a boolean or { dir?, maxFileBytes?, git? }",
    is.boolean(),
    is.shape({ dir: is.string({ nonEmpty: true }), maxFileBytes: is.integer(1), git: is.string({ nonEmpty: true }) }),
  ),
  cwd: is.string({ nonEmpty: true }),
  env: is.env(),
  timeoutMs: is.timerMs({ allowInfinity: true }),
  onApproval: is.func(),
  // Domain, capability and approval-mode checks: InvalidPolicyError and friends, before launch.
  policy: checkedLater,
  metadata: is.object(),
  systemPrompt: is.anyOf(
    "a non-empty string (replaces the system prompt) or { append: string } (adds to it)",
    is.string({ nonEmpty: true }),
    appendedPrompt,
  ),
  agents: is.recordOf(subagent, { key: is.string({ nonEmpty: true }) }),
  allowedTools: is.arrayOf(is.string({ nonEmpty: true }), "an array of permission rules"),
  disallowedTools: is.arrayOf(is.string({ nonEmpty: true }), "an array of permission rules"),
  additionalDirectories: is.arrayOf(absolutePath, "an array of absolute directory paths"),
  planMode: is.boolean(),
  effort: is.oneOf("minimal", "low", "medium", "high", "xhigh", "max", "ultra"),
  budget: is.shape(
    {
      maxTurns: is.integer(1),
      maxToolCalls: is.integer(1),
      maxCostUsd: is.anyOf("a number of US dollars > 0", is.number(Number.MIN_VALUE)),
    },
    PEER_BUDGET_HINTS,
  ),
  hooks: is.shape(
    {
      beforeToolCall: toolHooks,
      afterToolCall: toolHooks,
      onPromptSubmit: is.func(),
      onStop: is.func(),
      onSessionStart: is.func(),
      onSessionEnd: is.func(),
      onNotification: is.func(),
      onPreCompact: is.func(),
      onSubagentStart: is.func(),
      onSubagentStop: is.func(),
    },
    PEER_HOOK_HINTS,
  ),
  hookTimeoutMs: is.timerMs({ allowInfinity: true }),
  // Each entry is checked when skills resolve (ErrSkillKeyMissing, ErrSkillSourceMissing, ...).
  skills: is.arrayOf(checkedLater, "an array of skills (skillDir, skillInline, skillArchive, skillKey)"),
  skillProvider: is.object("a SkillProvider", ["getSkills"]),
  // Each entry is checked before launch (ErrInvalidMCPConfig).
  mcpServers: is.arrayOf(checkedLater, "an array of MCP servers (mcpStdio, mcpHttp, mcpSse)"),
};

/** Every key of `RunOptions` with its runtime check. */
export const RUN_OPTIONS_SHAPE: OptionShape = {
  ...SHARED,
  spawn: is.boolean(),
  signal: is.abortSignal(),
  // Output schemas are checked before launch (InvalidOutputSchemaError).
  schema: checkedLater,
  schemaJSON: checkedLater,
  schemaName: is.string(),
  schemaDescription: is.string(),
  returnInvalid: is.boolean(),
  suspend: is.shape({ deadlineMs: is.timerMs({ allowInfinity: true }), onDeadline: is.oneOf("deny", "abort") }),
};

/** Every key of `AgentOptions` with its runtime check. */
export const AGENT_OPTIONS_SHAPE: OptionShape = {
  ...SHARED,
  threadStore: is.object("a ThreadStore", ["resolve", "acquireLease", "renewLease", "releaseLease", "finalize"]),
  leaseTtlMs: is.timerMs({ positive: true }),
  identity: is.string(),
  owner: is.string({ nonEmpty: true }),
  workspace: is.string({ nonEmpty: true }),
  sessionStateLimitBytes: is.integer(1),
  sessionPortability: is.oneOf("best_effort", "strict"),
  spawn: is.boolean(),
  eventBuffer: is.integer(1),
  tools: hostTools,
  telemetry: is.shape({ tracer: is.object("an OpenTelemetry Tracer", ["startSpan"]), recordContent: is.boolean() }),
};

/** Every key of the options of `agent.prewarm()`: the run options plus `count`. */
export const PREWARM_OPTIONS_SHAPE: OptionShape = {
  ...RUN_OPTIONS_SHAPE,
  count: is.integer(1),
};

/** Every key of the options of `agent.thread()`. */
export const THREAD_OPTIONS_SHAPE: OptionShape = {
  resumeOnly: is.boolean(),
  adoptSession: is.string({ nonEmpty: true }),
};

const AGENT_ONLY = Object.keys(AGENT_OPTIONS_SHAPE).filter((key) => !(key in RUN_OPTIONS_SHAPE));
const RUN_ONLY = Object.keys(RUN_OPTIONS_SHAPE).filter((key) => !(key in AGENT_OPTIONS_SHAPE));

/** Agent-only keys found in run options, and where they belong. */
export const AGENT_ONLY_HINTS: Readonly<Record<string, string>> = Object.fromEntries(
  AGENT_ONLY.map((key) => [key, "an Agent option (new Agent(driver, { ... }))"]),
);

/** Run-only keys found in Agent options, and where they belong. */
export const RUN_ONLY_HINTS: Readonly<Record<string, string>> = Object.fromEntries(
  RUN_ONLY.map((key) => [key, "a run option (agent.run(prompt, { ... }))"]),
);
