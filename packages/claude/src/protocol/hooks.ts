import type { HookAnswer, HookAsk, HookPoint, ToolHookPoint } from "@adaptor/driver";

// The host's hooks over the control protocol: registered by name in the `initialize` control
// request, called by the CLI with `hook_callback` control requests, answered with the hook's JSON
// output (docs/protocols.md "Claude Code").

/** The CLI's hook events that serve each hook point. */
const EVENTS: Readonly<Record<HookPoint, readonly string[]>> = {
  beforeToolCall: ["PreToolUse"],
  afterToolCall: ["PostToolUse", "PostToolUseFailure"],
  promptSubmit: ["UserPromptSubmit"],
  stop: ["Stop"],
  sessionStart: ["SessionStart"],
  sessionEnd: ["SessionEnd"],
  notification: ["Notification"],
  preCompact: ["PreCompact"],
  subagentStart: ["SubagentStart"],
  subagentStop: ["SubagentStop"],
};

/**
 * The callback id of the host hook registered for `event`: `adaptor_hook_<event>`, and for a tool
 * hook's matcher group after the first `adaptor_hook_<event>:<group>`.
 */
const callbackId = (event: string, group = 0): string => `adaptor_hook_${event}${group > 0 ? `:${group}` : ""}`;

/**
 * The `hooks` of an `initialize` request: one matcher per CLI event of `points`, but for a tool
 * event one per matcher group of its `matchers` entry, in order, each with its own callback id (the
 * CLI applies each to its own tool names and calls the group's callback for the calls it names);
 * a tool event without an entry has one group for every tool (`*`).
 */
export function hookRegistrations(
  points: readonly HookPoint[],
  matchers: Readonly<Partial<Record<ToolHookPoint, readonly string[]>>> = {},
): Record<string, { matcher?: string; hookCallbackIds: string[] }[]> {
  const hooks: Record<string, { matcher?: string; hookCallbackIds: string[] }[]> = {};
  for (const point of points) {
    for (const event of EVENTS[point]) {
      if (point === "beforeToolCall" || point === "afterToolCall") {
        const groups = matchers[point] ?? ["*"];
        hooks[event] = groups.map((matcher, group) => ({
          matcher: matcher === "" ? "*" : matcher,
          hookCallbackIds: [callbackId(event, group)],
        }));
      } else hooks[event] = [{ hookCallbackIds: [callbackId(event)] }];
    }
  }
  return hooks;
}

/** The input of a `hook_callback` control request. */
interface HookCallbackInput {
  readonly hook_event_name?: unknown;
  readonly tool_name?: unknown;
  readonly tool_input?: unknown;
  readonly tool_use_id?: unknown;
  readonly tool_response?: unknown;
  readonly error?: unknown;
  readonly prompt?: unknown;
  readonly last_assistant_message?: unknown;
  readonly stop_hook_active?: unknown;
  readonly source?: unknown;
  readonly model?: unknown;
  readonly reason?: unknown;
  readonly message?: unknown;
  readonly title?: unknown;
  readonly notification_type?: unknown;
  readonly trigger?: unknown;
  readonly custom_instructions?: unknown;
  readonly agent_id?: unknown;
  readonly agent_type?: unknown;
}

/** `value` when it is a non-empty string, else undefined. */
const text = (value: unknown): string | undefined => (typeof value === "string" && value !== "" ? value : undefined);

/** The session start's source as the CLI names it; `startup` for one it names otherwise. */
function sessionSource(value: unknown): "startup" | "resume" | "clear" | "compact" {
  return value === "resume" || value === "clear" || value === "compact" ? value : "startup";
}

/** A host hook the CLI calls, read from a `hook_callback` control request; undefined for any other callback. */
export function readHookCallback(callbackIdValue: unknown, input: unknown): { event: string; ask: HookAsk } | undefined {
  if (typeof callbackIdValue !== "string" || !callbackIdValue.startsWith("adaptor_hook_")) return undefined;
  const [event = "", groupText] = callbackIdValue.slice("adaptor_hook_".length).split(":");
  const group = groupText === undefined ? 0 : Number(groupText);
  if (!Number.isSafeInteger(group) || group < 0) return undefined;
  const fields = (typeof input === "object" && input !== null ? input : {}) as HookCallbackInput;
  const tool = {
    ...(typeof fields.tool_use_id === "string" ? { toolCallId: fields.tool_use_id } : {}),
    toolName: typeof fields.tool_name === "string" ? fields.tool_name : "",
    input: fields.tool_input,
    group,
  };
  switch (event) {
    case "PreToolUse":
      return { event, ask: { point: "beforeToolCall", ...tool } };
    case "PostToolUse":
      return { event, ask: { point: "afterToolCall", ...tool, output: fields.tool_response, isError: false } };
    case "PostToolUseFailure":
      return { event, ask: { point: "afterToolCall", ...tool, output: fields.error, isError: true } };
    case "UserPromptSubmit":
      return { event, ask: { point: "promptSubmit", prompt: typeof fields.prompt === "string" ? fields.prompt : "" } };
    case "Stop":
      return {
        event,
        ask: {
          point: "stop",
          ...(typeof fields.last_assistant_message === "string" ? { text: fields.last_assistant_message } : {}),
          ...(fields.stop_hook_active === true ? { continued: true } : {}),
        },
      };
    case "SessionStart": {
      const model = text(fields.model);
      return { event, ask: { point: "sessionStart", source: sessionSource(fields.source), ...(model ? { model } : {}) } };
    }
    case "SessionEnd":
      return { event, ask: { point: "sessionEnd", reason: text(fields.reason) ?? "other" } };
    case "Notification": {
      const title = text(fields.title);
      return {
        event,
        ask: {
          point: "notification",
          message: text(fields.message) ?? "",
          ...(title ? { title } : {}),
          kind: text(fields.notification_type) ?? "",
        },
      };
    }
    case "PreCompact": {
      const instructions = text(fields.custom_instructions);
      return {
        event,
        ask: { point: "preCompact", trigger: fields.trigger === "auto" ? "auto" : "manual", ...(instructions ? { instructions } : {}) },
      };
    }
    case "SubagentStart":
      return { event, ask: { point: "subagentStart", agentId: text(fields.agent_id) ?? "", agentType: text(fields.agent_type) ?? "" } };
    case "SubagentStop":
      return {
        event,
        ask: {
          point: "subagentStop",
          agentId: text(fields.agent_id) ?? "",
          agentType: text(fields.agent_type) ?? "",
          ...(typeof fields.last_assistant_message === "string" ? { text: fields.last_assistant_message } : {}),
          ...(fields.stop_hook_active === true ? { continued: true } : {}),
        },
      };
    default:
      return undefined;
  }
}

/**
 * The hook's JSON output for `event`: a `PreToolUse` deny (`permissionDecision: "deny"`, the reason
 * the model reads) or an `updatedInput` and/or `additionalContext` without a decision (the CLI's
 * permission rules and the host's approvals still apply to the edited call; the context reaches
 * the model with the call's result); `additionalContext` after a tool call, with a
 * prompt, at a session's or a subagent's start; a `Stop` or `SubagentStop` block with the reason
 * the agent (or subagent) goes on with. An empty answer is an empty output.
 */
export function hookOutput(event: string, answer: HookAnswer): Record<string, unknown> {
  switch (event) {
    case "PreToolUse":
      if (answer.deny !== undefined)
        return { hookSpecificOutput: { hookEventName: event, permissionDecision: "deny", permissionDecisionReason: answer.deny } };
      return answer.updatedInput !== undefined || answer.additionalContext !== undefined
        ? {
            hookSpecificOutput: {
              hookEventName: event,
              ...(answer.updatedInput !== undefined ? { updatedInput: answer.updatedInput } : {}),
              ...(answer.additionalContext !== undefined ? { additionalContext: answer.additionalContext } : {}),
            },
          }
        : {};
    case "PostToolUse":
    case "PostToolUseFailure":
    case "UserPromptSubmit":
    case "SessionStart":
    case "SubagentStart":
      return answer.additionalContext !== undefined
        ? { hookSpecificOutput: { hookEventName: event, additionalContext: answer.additionalContext } }
        : {};
    case "Stop":
    case "SubagentStop":
      return answer.continueWith !== undefined ? { decision: "block", reason: answer.continueWith } : {};
    default:
      return {};
  }
}

/** The control response carrying a hook's output. */
export function hookResponse(requestId: string, output: Record<string, unknown>): Record<string, unknown> {
  return { type: "control_response", response: { subtype: "success", request_id: requestId, response: output } };
}
