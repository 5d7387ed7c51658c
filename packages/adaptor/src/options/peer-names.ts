import { peerOptionHints } from "@adaptor/driver";

/**
 * What the Claude Agent SDK and the Codex SDK call options that adaptor names otherwise, with what
 * to write here instead (`PEER_OPTIONS` of `@adaptor/driver`), and `images` (an image list given
 * beside the prompt, which is prompt parts here): an unknown run or Agent option under one of
 * these names gets the hint in its `InvalidOptionError` message (docs/migrating.md has the whole
 * mapping).
 */
export const PEER_OPTION_HINTS: Readonly<Record<string, string>> = Object.freeze({
  ...peerOptionHints(),
  // Not an option of the peer SDKs (they take images in the prompt too), but what other SDKs and
  // the CLIs (codex --image) call a list of images given beside the prompt.
  images:
    'images are prompt parts here: agent.run(["What is this?", { type: "image", path }]) (or { type: "image", data: bytes, mimeType })',
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
  PostToolUseFailure: "the Claude Agent SDK's PostToolUseFailure hook is hooks.afterToolCall here (it sees failed calls too: isError)",
  PermissionRequest: "the Claude Agent SDK's PermissionRequest hook is onApproval here (every permission prompt reaches it)",
  SessionStart: "the Claude Agent SDK's SessionStart hook is hooks.onSessionStart here",
  SessionEnd: "the Claude Agent SDK's SessionEnd hook is hooks.onSessionEnd here",
  Notification: "the Claude Agent SDK's Notification hook is hooks.onNotification here",
  PreCompact: "the Claude Agent SDK's PreCompact hook is hooks.onPreCompact here",
  SubagentStart: "the Claude Agent SDK's SubagentStart hook is hooks.onSubagentStart here",
  SubagentStop: "the Claude Agent SDK's SubagentStop hook is hooks.onSubagentStop here",
});
