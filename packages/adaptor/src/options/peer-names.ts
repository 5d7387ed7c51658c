/**
 * What the Claude Agent SDK and the Codex SDK call options that adaptor names otherwise, with what
 * to write here instead: an unknown run or Agent option under one of these names gets the hint in
 * its `InvalidOptionError` message (docs/migrating.md has the whole mapping).
 */
export const PEER_OPTION_HINTS: Readonly<Record<string, string>> = Object.freeze({
  permissionMode:
    "the Claude Agent SDK's permissionMode is policy here (policy.approvals.permission, policy.sandbox), and stream.setApprovalMode() during a run",
  canUseTool: "the Claude Agent SDK's canUseTool is onApproval here",
  maxTurns: "the Claude Agent SDK's maxTurns is budget.maxTurns here",
  maxBudgetUsd: "the Claude Agent SDK's maxBudgetUsd is budget.maxCostUsd here",
  abortController: "an AbortController is passed as signal here (signal: controller.signal)",
  resume: "a conversation is continued with agent.thread(key) here, or agent.thread(key, { adoptSession: id }) for a CLI session id",
  continue: "a conversation is continued with agent.thread(key) here (agent.listThreads() lists them)",
  forkSession: "a fork is thread.fork(newKey) here",
  resumeSessionAt: "thread.fork(newKey, { at }) forks at an earlier turn here; thread.rewind(runId) goes back to one",
  outputFormat: "structured output is schema (zod) or schemaJSON (a JSON Schema) here",
  outputSchema: "the Codex SDK's outputSchema is schemaJSON (a JSON Schema) or schema (zod) here",
  includePartialMessages: "text-delta events are on by default here (claude({ partialMessages: false }) turns them off)",
  appendSystemPrompt: "systemPrompt: { append } adds to the system prompt here",
  workingDirectory: "the Codex SDK's workingDirectory is cwd here",
  skipGitRepoCheck: "no git repository is needed here: pass cwd only",
  sandboxMode: 'the Codex SDK\'s sandboxMode is policy.sandbox here ("read_only", "workspace_write", "unrestricted")',
  approvalPolicy: 'the Codex SDK\'s approvalPolicy is policy.approvals.permission here ("ask", "auto_approve", "auto_deny")',
  webSearchEnabled: 'web search is policy.webSearch here ("allow" or "deny")',
  webSearchMode: 'web search is policy.webSearch here ("allow" or "deny")',
  modelReasoningEffort: "the Codex SDK's modelReasoningEffort is effort here",
  maxThinkingTokens:
    'the thinking budget is the env MAX_THINKING_TOKENS here (env: { MAX_THINKING_TOKENS: "4096" }) on Claude; effort sets the reasoning effort, not the budget',
  fallbackModel: 'a fallback model is a Claude Code flag here: claude({ extraArgs: ["--fallback-model", model] })',
  permissionPromptToolName:
    'no MCP tool is needed: every permission prompt reaches onApproval here (or an approval-request event), with policy.approvals.permission "ask"',
  enableFileCheckpointing: "file checkpoints are checkpointFiles: true here (thread turns); thread.rewind(runId) restores the files",
  settingSources: "which settings the CLI loads is a driver option here (claude({ workspaceSettings, configDir }))",
  pathToClaudeCodeExecutable: "the CLI's path is the driver option command here (claude({ command }))",
  codexPathOverride: "the CLI's path is the driver option command here (codex({ command }))",
});

/** Peer SDK names for `budget` fields. */
export const PEER_BUDGET_HINTS: Readonly<Record<string, string>> = Object.freeze({
  maxBudgetUsd: "the Claude Agent SDK's maxBudgetUsd is budget.maxCostUsd here",
  maxTokens: "there is no token budget here: budget.maxCostUsd (US dollars), budget.maxTurns or budget.maxToolCalls",
});

/** Peer SDK names for `hooks` (the Claude Agent SDK's hook events). */
export const PEER_HOOK_HINTS: Readonly<Record<string, string>> = Object.freeze({
  PreToolUse: "the Claude Agent SDK's PreToolUse hook is hooks.beforeToolCall here",
  PostToolUse: "the Claude Agent SDK's PostToolUse hook is hooks.afterToolCall here",
  UserPromptSubmit: "the Claude Agent SDK's UserPromptSubmit hook is hooks.onPromptSubmit here",
  Stop: "the Claude Agent SDK's Stop hook is hooks.onStop here",
});
