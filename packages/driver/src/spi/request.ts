import type { McpServerConfig, SkillBundle } from "./mcp-server.js";
import type { RunPolicy } from "./policy.js";
import type { HookPoint, ToolHookPoint } from "./hooks.js";

/** A system prompt for one run; see {@link DriverRequest.systemPrompt}. */
export interface SystemPrompt {
  /** `replace`: instead of the CLI's own system prompt; `append`: after it. */
  readonly mode: "replace" | "append";
  /** The text, non-empty. */
  readonly text: string;
}

/**
 * How much reasoning the model spends before it answers, from least to most; see
 * {@link DriverRequest.effort}. The CLI maps it to the model's own setting (Codex:
 * `model_reasoning_effort`, the Responses API's `reasoning.effort`). `"xhigh"` (extra high) and
 * `"max"` are levels of OpenAI's newer reasoning models, which codex passes through; a model
 * without one answers with an API error. `"ultra"` is a level codex's model catalog offers
 * ("maximum reasoning with automatic task delegation"); codex 0.171.0 sends it as the model's own
 * setting for it (for a model without it, e.g. gpt-5.5, as `xhigh`).
 */
export type ReasoningEffort = "minimal" | "low" | "medium" | "high" | "xhigh" | "max" | "ultra";

/** A subagent the agent may delegate to; see {@link DriverRequest.agents}. */
export interface SubagentDefinition {
  /** When to use it, for the model choosing a subagent. Non-empty. */
  readonly description: string;
  /** The subagent's system prompt. Non-empty. */
  readonly prompt: string;
  /** Tool names it may use; absent: the same tools as the main agent. */
  readonly tools?: readonly string[];
  /** Its model (an id or an alias the CLI knows); absent: the main agent's. */
  readonly model?: string;
}

/**
 * Limits of one run, each ending it as a business failure (`RunError` `budget_exceeded`, with
 * `details.budget` naming the limit) when passed. The SDK counts tool calls for every driver, and
 * model responses and cost from what a driver reports; a driver may also enforce them natively.
 */
export interface RunBudget {
  /** Most model responses (round trips to the model), an integer >= 1. */
  readonly maxTurns?: number;
  /**
   * Most tool calls the agent starts, an integer >= 1. A driver that cannot stop the call over the
   * limit before it runs refuses it before launch (`FeatureUnsupportedError`, feature
   * `budget.maxToolCalls`; ACP outside the agent's ask mode).
   */
  readonly maxToolCalls?: number;
  /** Most cost in US dollars, a number > 0. */
  readonly maxCostUsd?: number;
}

/** Image media types a prompt may carry. */
export type PromptImageType = "image/png" | "image/jpeg" | "image/gif" | "image/webp";

/** An image of the prompt, as bytes; see {@link DriverRequest.images}. */
export interface PromptImage {
  /** Its media type. */
  readonly mimeType: PromptImageType;
  /** Its bytes (already checked against the SDK's size limit). */
  readonly data: Uint8Array;
  /**
   * The file the bytes were read from, as an absolute path, when the prompt gave the image as a
   * `path`; absent for bytes and `data:` URLs. A driver may name it to the model (the user's own
   * name for the image) and hand the CLI this file rather than a copy.
   */
  readonly path?: string;
}

/** One invocation handed to {@link Driver.run}. */
export interface DriverRequest {
  /** UUID v7 of this run. */
  readonly runId: string;
  /** The user prompt. Drivers deliver it on stdin, never in argv. */
  readonly prompt: string;
  /**
   * Images of the prompt, in order, to be given to the model before the prompt's text. Only sent
   * to a driver whose descriptor declares `images`.
   */
  readonly images?: readonly PromptImage[];
  /** Model override for this run. */
  readonly model?: string;
  /** Working directory of the CLI (the workspace). */
  readonly cwd?: string;
  /** Extra environment for the CLI, merged over the driver's own. */
  readonly env?: Readonly<Record<string, string>>;
  /**
   * Provider session to continue; absent for a fresh conversation. `data` is the `data` of the
   * committed checkpoint being continued (or forked), exactly as the driver returned it: drivers
   * keep there what they need to start from that checkpoint (e.g. the last committed turn).
   */
  readonly session?: { readonly resumeId: string; readonly fork?: boolean; readonly data?: unknown };
  /**
   * A thread turn that may run on (and leave behind) a live process serving this session, when
   * the descriptor declares `processReuse`. False or absent: a fresh process (or a pre-warmed one,
   * see `Driver.prewarm`) that ends with the run, unless the driver makes a pre-warmed one ready for
   * another first turn.
   */
  readonly reuseProcess?: boolean;
  /**
   * JSON Schema the final answer must satisfy, already validated by the SDK. The call's
   * `schemaName` and `schemaDescription` are its root `title` and `description`: a driver hands
   * the schema to the model with those keywords kept.
   */
  readonly outputSchema?: Readonly<Record<string, unknown>>;
  /** Run policy, validated against the descriptor; drivers map it to CLI flags and settings. */
  readonly policy?: RunPolicy;
  /** MCP servers for this run (host declarations plus the SDK's host-tool server). */
  readonly mcpServers?: readonly McpServerConfig[];
  /** Skills to stage where the CLI loads them, for this run only. */
  readonly skills?: readonly SkillBundle[];
  /**
   * The run's system prompt: `replace` swaps the CLI's own system prompt for `text`, `append` adds
   * `text` after it. Only sent to a driver whose descriptor lists the mode
   * (`DriverCapabilities.systemPrompt`); a spawn input (a parked process started with another one
   * is not reused).
   */
  readonly systemPrompt?: SystemPrompt;
  /**
   * Subagents the agent may delegate to for this run, by name. Only sent to a driver whose
   * descriptor declares `subagents`; a spawn input.
   */
  readonly agents?: Readonly<Record<string, SubagentDefinition>>;
  /**
   * The run's permission rules, in the CLI's rule syntax (Claude: `"Read"`, `"Bash(git log:*)"`,
   * `"mcp__server__tool"`): a call an `allow` rule matches runs without anyone being asked, a call
   * a `deny` rule matches is refused (a bare tool name takes the tool away). Only sent to a driver
   * whose descriptor declares `toolRules`; a spawn input.
   */
  readonly toolRules?: { readonly allow?: readonly string[]; readonly deny?: readonly string[] };
  /**
   * Directories beyond the working directory that the agent's file tools may use, as absolute
   * paths. Only sent to a driver whose descriptor declares `additionalDirectories`; a spawn input.
   */
  readonly additionalDirectories?: readonly string[];
  /**
   * Start the turn in the CLI's plan mode: the agent proposes a plan and asks to leave plan mode
   * (a `plan_review` ask); after an approve it proceeds under the run's policy. Only sent (as
   * `true`) to a driver whose descriptor declares `planMode`; a spawn input.
   */
  readonly planMode?: boolean;
  /**
   * The model's reasoning effort for this run. Only sent to a driver whose descriptor lists the
   * level (`DriverCapabilities.effort`); absent: the CLI's own default. A spawn input where the
   * CLI takes it at launch (Claude's `--effort`).
   */
  readonly effort?: ReasoningEffort;
  /**
   * The run's limits, for a driver that enforces them natively too (e.g. a CLI's own turn or cost
   * limit); the SDK enforces them either way (see {@link RunBudget}).
   */
  readonly budget?: RunBudget;
  /**
   * The hook points at which the host has a hook, only those the descriptor lists
   * (`DriverCapabilities.hooks`): the driver asks `DriverSink.hook` there and carries the answer.
   * A spawn input (a CLI registers its hooks when it starts).
   */
  readonly hooks?: readonly HookPoint[];
  /**
   * The matcher groups of a tool hook in {@link hooks}, in the host's order: per group, the tool
   * names it is for as the host's `matcher` gives them (a name, names joined by `|`, or a regular
   * expression, matched against the tool's name as the CLI knows it; `"*"` for every tool). A
   * point absent here has one group, for every tool. Sent only to a driver whose descriptor
   * declares `hookMatchers`: it registers each group's matcher with its CLI as its own hook
   * matcher, and its `DriverSink.hook` asks name the group the CLI called (`HookAsk.group`). A
   * spawn input.
   */
  readonly hookMatchers?: Readonly<Partial<Record<ToolHookPoint, readonly string[]>>>;
  /** Host metadata, passed through for logging. */
  readonly metadata?: Readonly<Record<string, unknown>>;
  /**
   * W3C trace context of the run's span (`traceparent` header value), when the host records traces.
   * A driver whose CLI reads `TRACEPARENT` puts it in the environment of a process it spawns for
   * this run; it is not a spawn input (a reused process keeps the one it was started with).
   */
  readonly traceparent?: string;
  /** W3C `tracestate` that goes with {@link traceparent}, when there is one. */
  readonly tracestate?: string;
}

/**
 * What {@link Driver.prewarm} starts a process for: the spawn inputs of a future first turn (a
 * fresh conversation). A run takes a pre-warmed process only when the request it builds from the
 * same inputs has the same launch signature.
 */
export type PrewarmRequest = Pick<
  DriverRequest,
  | "model"
  | "cwd"
  | "env"
  | "outputSchema"
  | "policy"
  | "mcpServers"
  | "skills"
  | "systemPrompt"
  | "agents"
  | "hooks"
  | "hookMatchers"
  | "toolRules"
  | "additionalDirectories"
  | "effort"
>;
