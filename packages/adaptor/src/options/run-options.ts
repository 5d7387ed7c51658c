import type { ApprovalHandler } from "../approval/approval-handler.js";
import type { ThreadStore } from "@adaptor/threadstore";
import type { ReasoningEffort, RunBudget, SubagentDefinition } from "@adaptor/driver";
import type { Policy } from "../policy/policy.js";
import type { JsonSchemaSource, StandardSchemaLike, Tool } from "@adaptor/tool";
import type { McpServer } from "@adaptor/mcp";
import type { SkillProvider, SkillSpec } from "@adaptor/skill";
import type { SuspendOptions } from "../suspend/suspend-options.js";
import type { TelemetryOptions } from "../telemetry/telemetry-options.js";
import type { FileCheckpointOptions } from "../file-checkpoints/file-checkpoint-options.js";
import type { RunHooks } from "../hooks/run-hooks.js";

/**
 * Options shared by the Agent (defaults) and each call (overrides). Call values replace agent
 * values; `env` and `metadata` merge by key, the call's keys winning.
 *
 * Every option is checked at runtime before anything starts; an unknown key (with the closest
 * known one suggested), a wrong type, an empty required string, an out-of-range timer or a string
 * a CLI cannot carry (NUL, a lone UTF-16 surrogate) is an `InvalidOptionError` naming the field.
 */
export interface SharedRunOptions {
  /** Model id passed to the CLI, e.g. `"claude-sonnet-4-5"`. Non-empty. */
  readonly model?: string;
  /** Working directory of the CLI (the workspace), non-empty. Default: the driver's, else `process.cwd()`. */
  readonly cwd?: string;
  /** Extra environment for the CLI, merged over the driver's. Names non-empty without `=`; no NUL anywhere. */
  readonly env?: Readonly<Record<string, string>>;
  /**
   * Wall-clock limit in ms, in [0, 2^31-1] (the longest a Node timer waits), or `Infinity` for
   * none (the default). On expiry the run is cancelled and rejects with a `DriverError` `TIMEOUT`.
   */
  readonly timeoutMs?: number;
  /**
   * Decides approval requests; without it, answer the `approval-request` events of `stream()`.
   * `run()` reads no events, so there an approval in `ask` mode without this handler ends the run
   * at once with a `RunError` `approval_denied`, `details.unanswerable` (see `policy.approvals` to
   * decide automatically). A handler that throws, before or after deciding, ends the run ("approval
   * handler failed", the thrown value as `cause`); only a late answer's `ErrApprovalResolved` does not.
   */
  readonly onApproval?: ApprovalHandler;
  /** Run policy: sandbox, web search, browser, active-execution budget, approvals. A call's policy replaces the agent's whole value. */
  readonly policy?: Policy;
  /**
   * The system prompt: a string replaces the agent's own system prompt, `{ append }` adds text
   * after it. Non-empty, no NUL. Refused before launch with `FeatureUnsupportedError` (feature
   * `systemPrompt`) by a driver that cannot deliver that mode (see the README's agent table).
   * Default: the agent's own.
   */
  readonly systemPrompt?: string | { readonly append: string };
  /**
   * Subagents the agent may delegate to, by name (non-empty, no NUL): each with a `description`
   * (when to use it) and a `prompt` (its system prompt), optionally the `tools` it may use and its
   * `model`. A call's record replaces the agent's. Refused before launch with
   * `FeatureUnsupportedError` (feature `agents`) by a driver without subagents (see the README's
   * agent table). Default: none.
   */
  readonly agents?: Readonly<Record<string, SubagentDefinition>>;
  /**
   * Permission rules that let matching tool calls run without anyone being asked, in the CLI's rule
   * syntax (Claude: a tool name such as `"Read"`, a scoped rule such as `"Bash(git log:*)"`, an MCP
   * tool `"mcp__server__tool"`; non-empty strings, no NUL). The calls they match skip the approval
   * broker, so a run whose policy needs the host to decide (`sandbox: "read_only"`, or a
   * `permission` approval mode of `ask` / `auto_deny`) refuses them with
   * `PolicyCapabilityUnsupportedError`. Refused before launch with `FeatureUnsupportedError`
   * (feature `allowedTools`) by a driver that cannot apply rules (see the README's agent table).
   * A call's list replaces the agent's. Default: none.
   */
  readonly allowedTools?: readonly string[];
  /**
   * Permission rules whose calls are refused, in the same syntax as {@link allowedTools}; a bare
   * tool name takes the tool away from the model. They apply under every policy. Refused before
   * launch with `FeatureUnsupportedError` (feature `disallowedTools`) by a driver that cannot apply
   * rules. A call's list replaces the agent's. Default: none.
   */
  readonly disallowedTools?: readonly string[];
  /**
   * Directories beyond `cwd` that the agent's file tools may read (and, as the policy allows, edit),
   * as absolute paths (`InvalidOptionError` otherwise). Claude Code: `--add-dir` per directory.
   * Codex (both transports): under `policy.sandbox` `workspace_write` they are the sandbox's
   * writable roots besides `cwd` (a write elsewhere outside `cwd` stays refused); under
   * `read_only` accepted without widening writes (codex reads every path already); under full
   * access accepted as is; with no `policy.sandbox` refused before launch with
   * `FeatureUnsupportedError` (codex's own config would pick the sandbox); on app-server a thread
   * turn lacking a directory an earlier turn of the thread was given is refused before launch (an
   * adopted thread: once open, before its turn) with `FeatureUnsupportedError` (codex keeps a
   * thread's writable roots). Refused before launch
   * with `FeatureUnsupportedError` (feature `additionalDirectories`) by a driver that cannot widen
   * its agent's workspace (ACP agents). A call's list replaces the agent's. Default: none.
   */
  readonly additionalDirectories?: readonly string[];
  /**
   * Starts the turn in the CLI's plan mode (the Claude Agent SDK's `permissionMode: "plan"`): the
   * agent researches and proposes a plan, changes nothing, and asks to leave plan mode; that ask
   * is a `plan_review` approval (`policy.approvals.plan_review`, default `ask`) whose
   * `details.plan` holds the plan. Approve: the agent proceeds under the run's policy (never
   * beyond it: under `sandbox: "read_only"` it still only reads). Deny: it stays in plan mode (the
   * reason reaches it) and the turn ends when it stops. Claude Code only (`--permission-mode
   * plan`); refused before launch with `FeatureUnsupportedError` (feature `planMode`) by a driver
   * without a plan mode it asks to leave (Codex: see the README's agent table). Default: false.
   */
  readonly planMode?: boolean;
  /**
   * How much the model reasons before it answers: `"minimal"`, `"low"`, `"medium"`, `"high"`,
   * `"xhigh"`, `"max"` or `"ultra"` (`InvalidOptionError` otherwise, e.g. for the Codex SDK's
   * `"persistent"`, which codex 0.171.0 sends as `"disabled"`). Codex (both transports) sends each
   * level as the model request's `reasoning.effort` (`xhigh` and `max` only for a model that has
   * them: another answers with an API error; `ultra` as the level codex maps it to for the model,
   * e.g. `xhigh` for gpt-5.5); Claude Code takes `low`, `medium` and `high` (`--effort`, sent only for a model
   * that takes an effort). Refused before launch with `FeatureUnsupportedError` (feature `effort`)
   * by a driver that cannot carry the level (`minimal`, `xhigh`, `max` and `ultra` on Claude; see the README's agent
   * table). On Codex a thread turn without `effort` runs at the thread's last one, and a `minimal`
   * turn runs without web search when `policy.webSearch` is unset (the OpenAI API refuses the pair;
   * a `notice` `policy.adjusted` says so), `InvalidOptionError` with `webSearch: "allow"`. A call's
   * value replaces the agent's. Default: the CLI's own.
   */
  readonly effort?: ReasoningEffort;
  /**
   * Limits of the run: `maxTurns` (model responses, an integer >= 1), `maxToolCalls` (tool calls the
   * agent starts, an integer >= 1), `maxCostUsd` (US dollars, > 0). Passing one ends the run as a
   * `RunError` `budget_exceeded` (`details.budget` names it, `details.limit` and `details.used`)
   * with the partial Result. Tool calls are counted on every driver, the run ending at the call over
   * the limit before it runs; an ACP agent is held to it only in its ask mode (`askMode`, with a
   * permission mode `ask`, `auto_approve` or `auto_deny`), elsewhere `budget.maxToolCalls` is refused
   * before launch (an agent that does not ask first runs a call as it reports it). Turns and cost
   * only where the driver reports them, else the run is refused before launch with
   * `FeatureUnsupportedError` (feature `budget.maxTurns` / `budget.maxCostUsd` /
   * `budget.maxToolCalls`). A call's budget replaces the agent's.
   * Default: none.
   */
  readonly budget?: RunBudget;
  /**
   * Host callbacks around the run's life: before and after each tool call, on prompt submit, on
   * stop (see {@link RunHooks}). Where the agent waits for a hook its verdict is carried (deny or
   * edit a call, add context, go on); elsewhere the hook observes the run's events. A
   * `beforeToolCall` hook is refused before launch with `FeatureUnsupportedError` (feature
   * `hooks.beforeToolCall`) by an agent that cannot wait for it (see the README's hook table). A
   * call's hooks replace the agent's. Default: none.
   */
  readonly hooks?: RunHooks;
  /**
   * How long one call of a `hooks` hook may take, in ms, in [0, 2^31-1] or `Infinity` for no
   * bound: a hook that has not settled by then fails the run as a throwing hook does (an
   * `AdaptorError` `hook <name> failed` whose cause is a `DriverError` `TIMEOUT`, op `hook`,
   * device `hooks.<name>`, the bound in its message and no cause of its own; a pending tool call
   * is denied). As the Claude Agent SDK's per-hook `timeout`, for every hook of the run.
   * Default: 60,000.
   */
  readonly hookTimeoutMs?: number;
  /**
   * Host metadata, merged by key (the call's keys win) and handed to the driver as
   * `DriverRequest.metadata`, for a custom driver's own use. The built-in drivers pass it to no CLI
   * or model; it appears in no event, `Result` or telemetry span (tag a run by `stream.runId`).
   */
  readonly metadata?: Readonly<Record<string, unknown>>;
  /**
   * Skills for the run: concrete skills (`skillDir`, `skillInline`, `skillArchive`)
   * and catalogue references (`skillKey`). The agent's and the call's lists append (agent first);
   * identical duplicates merge, different declarations of one key fail with `SkillKeyConflictError`.
   */
  readonly skills?: readonly SkillSpec[];
  /** Resolves `skillKey` references; its required skills join every run. A call's provider replaces the agent's. */
  readonly skillProvider?: SkillProvider;
  /**
   * MCP servers for the run (`mcpStdio`, `mcpHttp`, `mcpSse`). A call's list replaces
   * the agent's whole list, as in the Go design; an empty list clears it for that call.
   */
  readonly mcpServers?: readonly McpServer[];
  /**
   * Thread turns only: snapshot the workspace (`cwd`, required) before each turn, so
   * `thread.rewind(runId)` can later undo that turn's file changes along with its conversation.
   * `true` or {@link FileCheckpointOptions} (where the snapshots live, the per-file size cap, the
   * git executable). Snapshots are kept in git's object store in a directory outside the workspace;
   * untracked files are included, files the project's `.gitignore` ignores and files over the cap
   * are not (and a rewind leaves them as they are). Refused with `FileCheckpointError` before the
   * driver starts (`git_missing`, `cwd_required`, `inside_workspace`), and with
   * `FeatureUnsupportedError` (feature `checkpointFiles`) by a driver that cannot resume a session
   * from an earlier checkpoint (ACP agents). Default false: no snapshot and no cost.
   */
  readonly checkpointFiles?: boolean | FileCheckpointOptions;
}

/** Options of one `agent.run()` / `agent.stream()` call. */
export interface RunOptions extends SharedRunOptions {
  /** Thread turns only: force a fresh CLI process instead of reusing a live one. */
  readonly spawn?: boolean;
  /** Aborting it cancels the run; the verdict is then an ordinary error (never `ErrRunCancelled`). */
  readonly signal?: AbortSignal;
  /**
   * Output schema of this call, a zod schema (3 or 4) converted to JSON Schema and
   * compiled (draft 2020-12) before launch. The answer is validated; read it with
   * `result.decode()` or `runAs()`. A bad schema: `InvalidOutputSchemaError` before any process starts.
   */
  readonly schema?: StandardSchemaLike;
  /** Output schema as a JSON Schema object or its JSON text (exactly one value); not with `schema`. */
  readonly schemaJSON?: JsonSchemaSource;
  /**
   * Name of the schema (trimmed; blank is none). With native structured output it is the root
   * `title` of the schema the CLI hands the model (Claude Code: the `StructuredOutput` tool's input
   * schema; Codex: the `text.format` schema, whose format name stays Codex's own
   * `codex_output_schema`); in prompt mode the instructions name the schema with it. Also
   * `result.structuredOutput.schemaName`. A schema whose own root `title` is a different text:
   * `InvalidOptionError` before launch.
   */
  readonly schemaName?: string;
  /**
   * Description of the schema (trimmed; blank is none). With native structured output it is the
   * root `description` of the schema the CLI hands the model; in prompt mode the instructions
   * quote it. A schema whose own root `description` is a different text (for instance a zod
   * schema's `.describe()`): `InvalidOptionError` before launch.
   */
  readonly schemaDescription?: string;
  /**
   * An invalid or missing structured value makes the run a success whose
   * `result.structuredOutput` says it is invalid and why, instead of a `RunError`
   * `policy_violation`. Default false.
   */
  readonly returnInvalid?: boolean;
  /**
   * Thread turns only: when an approval would be asked (mode `ask`), suspend the turn instead of
   * waiting: the question is stored, the CLI ended, the lease released, and the verdict is a
   * `Result` with `status: "suspended"` and the stored `pendingApproval`. Answer it later, from any
   * host, with `thread.answer()`. Needs a store with the pending-approvals capability
   * (`SuspendUnsupportedError` before the run starts otherwise). A turn that continues the
   * thread's stored conversation also needs a driver declaring `sessions.resume` (its resume runs
   * in a new process): otherwise `FeatureUnsupportedError` (feature `suspend`) before the CLI
   * starts. Default: none (approvals wait).
   */
  readonly suspend?: SuspendOptions;
}

/** Options of `new Agent(driver, options)`; checked by the constructor (`InvalidOptionError`). */
export interface AgentOptions extends SharedRunOptions {
  /** Where threads keep checkpoints and leases; required by `agent.thread()` runs. */
  readonly threadStore?: ThreadStore;
  /** Thread lease time-to-live in ms, in (0, 2^31-1], renewed every third of it during a run. Default 30,000. */
  readonly leaseTtlMs?: number;
  /** Host identity (tenant, user) stored with thread records and part of their fingerprint. Default `""`. */
  readonly identity?: string;
  /**
   * Lease owner name of this agent, non-empty. Default: `agent-<UUID v7>`, one per Agent. A thread
   * turn takes the key's lease as `<owner>/<run id>` (the run's `result.runId`), so two turns of
   * one agent on one key exclude each other too: the `owner` of a `BusyError` (`ErrThreadBusy`)
   * held by this agent's turn is that, never `owner` alone; compare the part before the last `/`.
   * `thread.rewind()` takes the lease as `owner` itself.
   */
  readonly owner?: string;
  /**
   * The workspace's name in thread fingerprints, non-empty, e.g. a repository URL. Default: the
   * directory the CLI runs in (the run's `cwd`, else the Agent's, else the driver's, else
   * `process.cwd()`), so Agents whose drivers run in different folders never continue each other's
   * threads (`ErrThreadIncompatible`). Workers that run one repository from different checkouts give the same name so
   * each continues the others' threads (with portable sessions; see the README "Many workers").
   */
  readonly workspace?: string;
  /**
   * Portable sessions: the most bytes (compressed, summed over the turns) one thread's stored
   * session state may hold, a positive integer. A turn that would go over it is committed without
   * its session files (see {@link AgentOptions.sessionPortability}). Default 67,108,864 (64 MiB).
   */
  readonly sessionStateLimitBytes?: number;
  /**
   * Portable sessions: what a successful thread turn does when its session files cannot be stored
   * (the driver found none, could not read them, or they are over `sessionStateLimitBytes`).
   * - `"best_effort"` (default): the checkpoint is committed without them and a `notice`
   *   (`lifecycle`, message `session not stored`, `data.cause` `not_exported` or `too_large`) says
   *   so; the turn resolves its `Result`. The thread continues where this host's CLI home holds
   *   the checkpoint; another host rejects it with `ThreadSessionError` `local_only`
   *   (`ErrThreadSessionUnavailable`) until a turn's files are stored again.
   * - `"strict"`: nothing is committed (the previous checkpoint is kept) and the run rejects with
   *   `ThreadSessionError` (`not_exported`: `ErrThreadSessionUnavailable`; `too_large`:
   *   `ErrThreadSessionTooLarge`) carrying the turn's `Result`.
   * A session file the CLI rewrote during the turn is never stored, whatever this says: see
   * `ErrThreadSessionRewritten`.
   */
  readonly sessionPortability?: "best_effort" | "strict";
  /** Thread turns: force a fresh CLI process for every turn. Default false (reuse when the driver can). */
  readonly spawn?: boolean;
  /**
   * Events buffered per stream before high-frequency deltas are dropped (each gap reported by a
   * `dropped` event), an integer >= 1. Default 1024. A driver may hand over a batch of lines at
   * once, so a batch larger than the buffer can drop deltas even for a consumer that reads as fast
   * as it can; `result.text` stays whole either way. Once 64 times this many events (at least
   * 65,536) wait unread, the run ends with a `DriverError` `RESOURCE_EXHAUSTED` (op `events`).
   */
  readonly eventBuffer?: number;
  /**
   * Host tools the agent may call, made with `defineTool`. Served by one MCP server the
   * Agent owns (127.0.0.1, bearer token), started on the first run and stopped by `close()`. A bad
   * definition fails each run before the driver starts (`ErrInvalidDefinition`).
   */
  readonly tools?: readonly Tool[];
  /**
   * OpenTelemetry: the tracer for the run's spans (default: the global provider's `"adaptor"`
   * tracer, a no-op until a host registers an SDK) and whether spans may carry content (prompt,
   * tool inputs, messages; default false). See docs/observability.md for the spans.
   */
  readonly telemetry?: TelemetryOptions;
}

/** Call options merged over agent defaults. */
export function mergeRunOptions(agent: AgentOptions, call: RunOptions): RunOptions {
  const env = agent.env || call.env ? { ...agent.env, ...call.env } : undefined;
  const metadata = agent.metadata || call.metadata ? { ...agent.metadata, ...call.metadata } : undefined;
  const {
    eventBuffer: _b,
    threadStore: _s,
    leaseTtlMs: _l,
    identity: _i,
    owner: _o,
    telemetry: _t,
    workspace: _w,
    sessionStateLimitBytes: _m,
    sessionPortability: _p,
    ...shared
  } = agent;
  const skills = agent.skills || call.skills ? [...(agent.skills ?? []), ...(call.skills ?? [])] : undefined;
  return { ...shared, ...call, ...(env ? { env } : {}), ...(metadata ? { metadata } : {}), ...(skills ? { skills } : {}) };
}
