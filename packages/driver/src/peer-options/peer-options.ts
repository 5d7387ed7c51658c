/** The other SDKs whose option names are answered: the Claude Agent SDK (`query({ options })`) and the Codex SDK (`new Codex()`, `startThread()`, `run()`). */
export type PeerSdk = "Claude Agent SDK" | "Codex SDK";

/** One option of a peer SDK that adaptor names or places otherwise. */
export interface PeerOption {
  /** The SDK whose option this is. */
  readonly sdk: PeerSdk;
  /** What to write here instead, as the refusal says it after `is not a known option; `. */
  readonly hint: string;
  /**
   * The adaptor names the hint points to, each written in the hint as docs/migrating.md writes it
   * in this option's row (a test holds the two together); `"none"` where adaptor has no equivalent.
   */
  readonly uses: readonly string[];
}

const claude = (hint: string, ...uses: string[]): PeerOption => Object.freeze({ sdk: "Claude Agent SDK", hint, uses: Object.freeze(uses) });
const codex = (hint: string, ...uses: string[]): PeerOption => Object.freeze({ sdk: "Codex SDK", hint, uses: Object.freeze(uses) });

const CLI_PATH = (driver: string): string => `the CLI's path is the driver option command here (${driver}({ command }))`;
const THINKING =
  'the thinking budget is the env MAX_THINKING_TOKENS here (env: { MAX_THINKING_TOKENS: "4096" }) on Claude; effort sets the reasoning effort, not the budget';
const WEB_SEARCH = 'web search is policy.webSearch here ("allow" or "deny")';

/**
 * The options of the Claude Agent SDK and the Codex SDK that adaptor refuses under their own name,
 * each with what to write here instead (their options adaptor takes as they are, such as `model`,
 * `cwd`, `env`, `allowedTools` or `signal`, are not listed). An unknown run or Agent option under
 * one of these names, and an unknown `claude()` / `codex()` config key under a name of that
 * driver's peer SDK, is refused with `; <hint>` in its `InvalidOptionError` message.
 * docs/migrating.md has a row for each.
 */
export const PEER_OPTIONS: Readonly<Record<string, PeerOption>> = Object.freeze({
  // Claude Agent SDK: the fields of `Options`.
  abortController: claude("an AbortController is passed as signal here (signal: controller.signal)", "signal"),
  agent: claude(
    "the main thread's agent is a Claude Code flag here: claude({ extraArgs: [\"--agent\", name] }), for an agent of agents or of the CLI's configuration",
    '"--agent"',
  ),
  betas: claude('beta headers are a Claude Code flag here: claude({ extraArgs: ["--betas", beta] })', '"--betas"'),
  canUseTool: claude("the Claude Agent SDK's canUseTool is onApproval here", "onApproval"),
  continue: claude("a conversation is continued with agent.thread(key) here (agent.listThreads() lists them)", "agent.listThreads()"),
  debug: claude('debug logs are a Claude Code flag here: claude({ extraArgs: ["--debug"] }) or ["--debug-file", path]', '"--debug"'),
  debugFile: claude('debug logs are a Claude Code flag here: claude({ extraArgs: ["--debug-file", path] })', '"--debug-file"'),
  enableFileCheckpointing: claude(
    "file checkpoints are checkpointFiles: true here (thread turns); thread.rewind(runId) restores the files",
    "checkpointFiles: true",
    "thread.rewind(runId)",
  ),
  executable: claude(CLI_PATH("claude"), "claude({ command })"),
  executableArgs: claude(CLI_PATH("claude"), "claude({ command })"),
  extraArgs: claude(
    'extra CLI flags are the driver option extraArgs here (claude({ extraArgs: ["--flag", "value"] }))',
    "claude({ extraArgs",
  ),
  fallbackModel: claude(
    'a fallback model is a Claude Code flag here: claude({ extraArgs: ["--fallback-model", model] })',
    '"--fallback-model"',
  ),
  forkSession: claude("a fork is thread.fork(newKey) here", "thread.fork(newKey)"),
  includePartialMessages: claude(
    "text-delta events are on by default here (claude({ partialMessages: false }) turns them off)",
    "partialMessages: false",
  ),
  maxBudgetUsd: claude("the Claude Agent SDK's maxBudgetUsd is budget.maxCostUsd here", "budget.maxCostUsd"),
  maxThinkingTokens: claude(THINKING, "MAX_THINKING_TOKENS"),
  maxTurns: claude("the Claude Agent SDK's maxTurns is budget.maxTurns here", "budget.maxTurns"),
  onElicitation: claude(
    'an MCP server\'s elicitation is an approval of kind "elicitation" here: policy: { approvals: { elicitation: "ask" } } sends it to onApproval (approve({ updatedInput }) accepts with the form\'s content, deny() declines, answer("cancel") cancels)',
    'elicitation: "ask"',
    "onApproval",
  ),
  outputFormat: claude("structured output is schema (zod) or schemaJSON (a JSON Schema) here", "schema", "schemaJSON"),
  pathToClaudeCodeExecutable: claude(CLI_PATH("claude"), "claude({ command })"),
  permissionMode: claude(
    'the Claude Agent SDK\'s permissionMode is policy here ("default" is policy: { approvals: { permission: "ask" } }, "bypassPermissions" is policy: { sandbox: "unrestricted" }), and stream.setApprovalMode() during a run',
    'approvals: { permission: "ask" }',
    'sandbox: "unrestricted"',
  ),
  allowDangerouslySkipPermissions: claude(
    'running without permission prompts is policy: { sandbox: "unrestricted" } here (the peer\'s bypassPermissions)',
    'sandbox: "unrestricted"',
  ),
  permissionPromptToolName: claude(
    'no MCP tool is needed: every permission prompt reaches onApproval here (or an approval-request event), with policy.approvals.permission "ask"',
    "onApproval",
  ),
  persistSession: claude(
    'sessions are saved here (threads continue from them); claude({ extraArgs: ["--no-session-persistence"] }) saves none, for runs outside threads',
    '"--no-session-persistence"',
  ),
  plugins: claude(
    'a plugin\'s skills are skills here (skillDir, skillInline, skillArchive); a whole plugin is claude({ extraArgs: ["--plugin-dir", dir] })',
    "skills",
    '"--plugin-dir"',
  ),
  promptSuggestions: claude("none here: a run ends with its result, no suggested next prompt follows", "none"),
  agentProgressSummaries: claude(
    "none here: a subagent's activity is its tool-call and tool-result events, with parentToolCallId",
    "parentToolCallId",
  ),
  resume: claude(
    "a conversation is continued with agent.thread(key) here, or agent.thread(key, { adoptSession: id }) for a CLI session id",
    "adoptSession",
  ),
  resumeSessionAt: claude(
    "thread.fork(newKey, { at }) forks at an earlier turn here; thread.rewind(runId) goes back to one",
    "thread.fork(newKey, { at })",
    "thread.rewind(runId)",
  ),
  sandbox: claude(
    "Claude Code's sandbox settings are its settings file here (the \"sandbox\" key of claude({ configDir })'s settings.json); what a run may do is policy.sandbox",
    "configDir",
    "policy.sandbox",
  ),
  sessionId: claude(
    "a conversation's key is your own here: agent.thread(key); the CLI's session id is result.sessionId",
    "agent.thread(key)",
    "result.sessionId",
  ),
  settings: claude(
    "settings are driver options here: claude({ configDir }) names the directory of the settings.json, claude({ workspaceSettings: true }) adds the project's (the driver owns --settings)",
    "configDir",
    "workspaceSettings: true",
  ),
  settingSources: claude(
    'which settings the CLI loads is a driver option here: settingSources: [] is claude({ userSettings: false }), "project" / "local" is claude({ workspaceSettings: true })',
    "userSettings: false",
    "workspaceSettings: true",
  ),
  spawnClaudeCodeProcess: claude(
    `the driver starts the CLI here: ${CLI_PATH("claude")}, its environment env and inheritEnv`,
    "claude({ command })",
  ),
  stderr: claude("the CLI's stderr is in process events of kind stderr here, and in result.raw().stderr", "process", "result.raw().stderr"),
  strictMcpConfig: claude(
    "only the run's mcpServers reach the CLI here (strict by default); claude({ userMcpServers: true }) adds the user's own",
    "mcpServers",
    "userMcpServers: true",
  ),
  thinking: claude(THINKING, "MAX_THINKING_TOKENS"),
  toolConfig: claude("none here: Claude Code's built-in tools run with their defaults", "none"),
  tools: claude(
    'the Claude Agent SDK\'s tools (the built-ins offered) is policy: { sandbox: "read_only" } here (the read-only built-ins), otherwise disallowedTools',
    'policy: { sandbox: "read_only" }',
    "disallowedTools",
  ),
  // Claude Agent SDK 0.3.332 (Claude Code 2.1.332): the fields of `Options` it added.
  title: claude(
    "none here: the session's title is the CLI's own (listSessions shows it); an app keeps its own name for a conversation with its thread key",
    "none",
  ),
  taskBudget: claude(
    "none here: no token budget reaches the model; budget.maxTurns, budget.maxToolCalls and budget.maxCostUsd bound a run",
    "none",
    "budget.maxTurns",
  ),
  includeHookEvents: claude(
    "none here: the CLI's own hooks are not reported; the run's hooks are the hooks option (beforeToolCall, afterToolCall, onPromptSubmit, onStop, …)",
    "none",
    "hooks",
  ),
  forwardSubagentText: claude(
    "none here: a subagent's activity is its tool-call and tool-result events, with parentToolCallId",
    "none",
    "parentToolCallId",
  ),
  sessionStore: claude(
    "a conversation's state is kept by the Agent's threadStore here (new Agent(driver, { threadStore }); sessionPortability carries it between hosts)",
    "threadStore",
  ),
  sessionStoreFlush: claude("none here: the Agent's threadStore is written once per committed turn", "none", "threadStore"),
  loadTimeoutMs: claude("none here: the Agent's threadStore is read with the run's signal and timeoutMs", "none", "timeoutMs"),
  toolAliases: claude("none here: tools keep their names (disallowedTools and hooks name them as the CLI does)", "none"),
  onUserDialog: claude(
    'none here: the CLI\'s dialogs are not relayed; what it asks the host is an approval (onApproval), including questions with policy: { approvals: { question: "ask" } }',
    "none",
    "onApproval",
  ),
  supportedDialogKinds: claude("none here: the CLI's dialogs are not relayed (onUserDialog has no equivalent)", "none"),
  planModeInstructions: claude(
    "none here: plan mode (the run option planMode) keeps Claude Code's own plan workflow; systemPrompt: { append } adds instructions",
    "none",
    "planMode",
  ),
  managedSettings: claude(
    "none here: policy-tier settings are Claude Code's managed settings file on the host; a run's limits are policy, and claude({ configDir }) names the settings.json",
    "none",
    "policy",
    "configDir",
  ),
  permissionPrompts: claude(
    'who answers prompts is policy.approvals.permission here: "ask" sends them to onApproval, "auto_deny" denies them',
    '"auto_deny"',
    "onApproval",
  ),
  projectConfigRoot: claude(
    "none here: project settings, .mcp.json and .claude come from cwd (with claude({ workspaceSettings: true }))",
    "none",
    "workspaceSettings: true",
  ),
  resumeDropsTurn: claude(
    "thread.rewind(runId) goes back to before a turn here; thread.fork(newKey, { at }) forks at an earlier turn",
    "thread.rewind(runId)",
    "thread.fork(newKey, { at })",
  ),
  mcpServersDelivery: claude("none here: the driver delivers mcpServers itself", "none", "mcpServers"),
  pluginDelivery: claude('none here: a plugin is claude({ extraArgs: ["--plugin-dir", dir] })', "none", '"--plugin-dir"'),
  verbatimPrompts: claude(
    "none here: the prompt goes to Claude Code as written, which expands its @-mentions and slash commands as it does",
    "none",
  ),
  perTaskStopAffordance: claude(
    "none here: a run's background tasks end with it; stream.interrupt() stops the turn",
    "none",
    "stream.interrupt()",
  ),
  // Claude Agent SDK: an option of its earlier versions.
  appendSystemPrompt: claude("systemPrompt: { append } adds to the system prompt here", "systemPrompt: { append"),

  // Codex SDK: the fields of `CodexOptions`, `ThreadOptions` and `TurnOptions`.
  codexPathOverride: codex(CLI_PATH("codex"), "codex({ command })"),
  baseUrl: codex(
    "the base URL is configOverrides: { openai_base_url } here (or CODEX_HOME's config.toml); codex ignores an OPENAI_BASE_URL variable",
    "config.toml",
    "configOverrides",
  ),
  apiKey: codex("the key is passed in env here (env: { CODEX_API_KEY }, the variable the Codex SDK sets)", "CODEX_API_KEY"),
  config: codex("codex config keys are the driver option configOverrides here (codex({ configOverrides }))", "codex({ configOverrides })"),
  workingDirectory: codex("the Codex SDK's workingDirectory is cwd here", "cwd"),
  skipGitRepoCheck: codex("no git repository is needed here: pass cwd only", "cwd"),
  sandboxMode: codex(
    'the Codex SDK\'s sandboxMode is policy.sandbox here ("read_only", "workspace_write", "unrestricted")',
    '"read_only"',
    '"workspace_write"',
    '"unrestricted"',
  ),
  approvalPolicy: codex(
    'the Codex SDK\'s approvalPolicy is policy.approvals.permission here ("ask", "auto_approve", "auto_deny")',
    '"ask"',
    '"auto_approve"',
    '"auto_deny"',
  ),
  modelReasoningEffort: codex("the Codex SDK's modelReasoningEffort is effort here", "effort"),
  networkAccessEnabled: codex(
    'network access is codex({ configOverrides: { "sandbox_workspace_write.network_access": true } }) with policy: { sandbox: "workspace_write" } here',
    '"sandbox_workspace_write.network_access": true',
    'sandbox: "workspace_write"',
  ),
  webSearchEnabled: codex(WEB_SEARCH, '"allow"', '"deny"'),
  webSearchMode: codex(WEB_SEARCH, '"allow"', '"deny"'),
  collaborationMode: codex("none here: codex runs each turn in its default collaboration mode", "none"),
  outputSchema: codex("the Codex SDK's outputSchema is schemaJSON (a JSON Schema) or schema (zod) here", "schemaJSON"),
  onRequestUserInput: codex(
    'codex\'s request_user_input questions are approvals of kind "question" here: policy: { approvals: { question: "ask" } } sends each question to onApproval (answer(choice) answers it)',
    'question: "ask"',
    "onApproval",
  ),
});

/**
 * Options of each peer SDK given where its CLI is set up (the Claude Agent SDK's `query()` options,
 * the Codex SDK's `startThread()` options) that are run options here, not driver options.
 */
const PEER_RUN_OPTIONS: Readonly<Record<PeerSdk, readonly string[]>> = Object.freeze({
  "Claude Agent SDK": Object.freeze([
    "additionalDirectories",
    "allowedTools",
    "disallowedTools",
    "agents",
    "hooks",
    "mcpServers",
    "systemPrompt",
    "effort",
  ]),
  "Codex SDK": Object.freeze(["additionalDirectories"]),
});

/**
 * The hints for a driver config of `sdk`'s CLI (`claude()`, `codex()`): the peer SDK's names of
 * {@link PEER_OPTIONS}, and for its options that are run options here (such as
 * `additionalDirectories`), `it is a run option here (agent.run(prompt, { <name> }))`.
 */
export function driverConfigHints(sdk: PeerSdk): Readonly<Record<string, string>> {
  return Object.freeze({
    ...peerOptionHints(sdk),
    ...Object.fromEntries(PEER_RUN_OPTIONS[sdk].map((name) => [name, `it is a run option here (agent.run(prompt, { ${name} }))`])),
  });
}

/**
 * The hints of {@link PEER_OPTIONS} by option name, for the `hints` of `checkOptions`: every
 * peer SDK's, or only `sdk`'s (a driver config answers the names of its CLI's SDK).
 */
export function peerOptionHints(sdk?: PeerSdk): Readonly<Record<string, string>> {
  return Object.freeze(
    Object.fromEntries(
      Object.entries(PEER_OPTIONS)
        .filter(([, option]) => sdk === undefined || option.sdk === sdk)
        .map(([name, option]) => [name, option.hint]),
    ),
  );
}
