// Delegations run in the foreground. claude-code 2.1.332 launches a subagent (its Agent tool) in
// the background unless the call says `run_in_background: false`: the parent gets "Async agent
// launched" and the subagent's answer would only come back as a task notification, after the turn
// (docs/protocols.md "Subagents"). The driver registers a `PreToolUse` hook on that tool whose
// answer sets `run_in_background: false`, so the subagent's answer is the call's tool result,
// read by the parent model in the same turn. Background Bash commands are left as they are.

/** The hook callback id the driver registers on the Agent tool to run every delegation in the foreground. */
export const FOREGROUND_AGENT_HOOK = "adaptor_foreground_agent";

/** The `PreToolUse` matcher (a pattern on the tool name) of {@link FOREGROUND_AGENT_HOOK}: the subagent tool, by its name and its former one. */
export const AGENT_TOOL_MATCHER = "^(Agent|Task)$";

const AGENT_TOOLS: ReadonlySet<string> = new Set(["Agent", "Task"]);

/**
 * Tool names claude-code 2.1.332 still takes under a former name, former → current: it offers the
 * model `Agent` (no `Task`), yet runs a `Task` call as `Agent`, and names it `Agent` in
 * `can_use_tool` requests and hook callbacks, yet `Task` in a result's `permission_denials`.
 * Events, the transcript and the Result's permission denials use the current name too.
 */
export const CLAUDE_TOOL_ALIASES: Readonly<Record<string, string>> = Object.freeze({ Task: "Agent" });

/**
 * The input a call of `toolName` runs with: for the Agent tool, an object input with
 * `run_in_background: false` (a copy; the same object when it already says so); any other input as given.
 */
export function inForeground(toolName: unknown, input: unknown): unknown {
  if (typeof toolName !== "string" || !AGENT_TOOLS.has(toolName)) return input;
  if (typeof input !== "object" || input === null || Array.isArray(input)) return input;
  const fields = input as Record<string, unknown>;
  return fields.run_in_background === false ? input : { ...fields, run_in_background: false };
}

/**
 * The answer to a {@link FOREGROUND_AGENT_HOOK} callback for a call of `toolName` with `toolInput`:
 * an `updatedInput` with `run_in_background: false`, or no output when the input already says so
 * (the call goes on unchanged, through the usual permission flow either way).
 */
export function foregroundAgentAnswer(requestId: string, toolName: unknown, toolInput: unknown): Record<string, unknown> {
  const input = inForeground(toolName, toolInput);
  const response = input === toolInput ? {} : { hookSpecificOutput: { hookEventName: "PreToolUse", updatedInput: input } };
  return { type: "control_response", response: { subtype: "success", request_id: requestId, response } };
}
