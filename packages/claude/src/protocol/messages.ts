import type { PromptImage } from "@adaptor/driver";
import { FOREGROUND_AGENT_HOOK, AGENT_TOOL_MATCHER } from "./foreground-agents.js";
// The subset of Claude Code's stream-json protocol the driver reads and writes
// (docs/protocols.md "Claude Code"); the output lines' types (`ResultLine`, `ContentBlock`) and
// their translation (`StreamJsonTurn`) are the driver kit's, shared with CodeBuddy Code.

/**
 * The user line that carries a prompt (its images, then its text: none when empty beside an image) on stdin. `uuid` names the prompt: the CLI tags the lines of
 * the turn it starts with it (`user_message_uuid` / `user_message_uuids`).
 */
export function userLine(text: string, uuid?: string, images: readonly PromptImage[] = []): Record<string, unknown> {
  // Images first, then the text (the order the Messages API documents for image prompts).
  const content: Record<string, unknown>[] = images.map((image) => ({
    type: "image",
    source: { type: "base64", media_type: image.mimeType, data: Buffer.from(image.data).toString("base64") },
  }));
  // The Messages API refuses an empty text block.
  if (text !== "" || content.length === 0) content.push({ type: "text", text });
  return {
    type: "user",
    session_id: "",
    ...(uuid ? { uuid } : {}),
    message: { role: "user", content },
    parent_tool_use_id: null,
  };
}

/** The host's answer to a `can_use_tool` control request. */
export function permissionResponse(
  requestId: string,
  decision: { behavior: "allow"; updatedInput: unknown; updatedPermissions?: readonly unknown[] } | { behavior: "deny"; message: string },
): Record<string, unknown> {
  return { type: "control_response", response: { subtype: "success", request_id: requestId, response: decision } };
}

/** The CLI's own interrupt: it ends the turn with an `error_during_execution` result. */
export function interruptRequest(requestId: string): Record<string, unknown> {
  return { type: "control_request", request_id: requestId, request: { subtype: "interrupt" } };
}

/** An error answer to a control request the driver does not handle, so the CLI never waits. */
export function controlError(requestId: string, error: string): Record<string, unknown> {
  return { type: "control_response", response: { subtype: "error", request_id: requestId, error } };
}

/** The hook callback id the driver registers to ask the host for every tool call. */
export const ASK_EVERY_TOOL_HOOK = "adaptor_ask_every_tool";

/**
 * The `initialize` control request, registering `hooks` (by CLI hook event, each a list of
 * matchers with the callback ids the CLI calls through `hook_callback` control requests). The
 * `PreToolUse` hook on the Agent tool that runs delegations in the foreground
 * ({@link FOREGROUND_AGENT_HOOK}) comes first, then, with `askForEveryTool`, a `PreToolUse` hook for
 * every tool (matcher `*`) with {@link ASK_EVERY_TOOL_HOOK}.
 */
export function initializeRequest(
  requestId: string,
  askForEveryTool: boolean,
  hooks: Readonly<Record<string, readonly unknown[]>> = {},
): Record<string, unknown> {
  const all: Record<string, unknown[]> = {
    PreToolUse: [
      { matcher: AGENT_TOOL_MATCHER, hookCallbackIds: [FOREGROUND_AGENT_HOOK] },
      ...(askForEveryTool ? [{ matcher: "*", hookCallbackIds: [ASK_EVERY_TOOL_HOOK] }] : []),
    ],
  };
  for (const [event, matchers] of Object.entries(hooks)) all[event] = [...(all[event] ?? []), ...matchers];
  return {
    type: "control_request",
    request_id: requestId,
    request: { subtype: "initialize", hooks: all },
  };
}

/**
 * The answer to a `PreToolUse` hook callback: `"ask"` makes the CLI ask the host (`can_use_tool`)
 * even for a call it would allow by itself; no decision leaves the call to the CLI's own rules.
 */
export function preToolUseAnswer(requestId: string, ask: boolean): Record<string, unknown> {
  const response = ask
    ? {
        hookSpecificOutput: {
          hookEventName: "PreToolUse",
          permissionDecision: "ask",
          permissionDecisionReason: "the host asks for every tool call",
        },
      }
    : {};
  return { type: "control_response", response: { subtype: "success", request_id: requestId, response } };
}
