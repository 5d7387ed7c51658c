import type { ApprovalAsk, ApprovalDecision } from "@adaptor/driver";

/** A `can_use_tool` control request from the CLI (Claude Code, CodeBuddy Code). */
export interface CanUseToolRequest {
  subtype: "can_use_tool";
  tool_name: string;
  display_name?: string;
  input: unknown;
  description?: string;
  tool_use_id?: string;
  permission_suggestions?: unknown[];
  blocked_path?: string;
}

/** Claude's question tool: its input carries `questions[].options[].label`. */
const QUESTION_TOOL = "AskUserQuestion";
/** Claude's plan-mode exit tool: its input carries `plan`. */
const PLAN_TOOL = "ExitPlanMode";

interface Question {
  question?: string;
  header?: string;
  options?: { label?: string; description?: string }[];
  multiSelect?: boolean;
}

/**
 * Maps a `can_use_tool` control request (Claude-Code-style stream-json control protocol) to an approval ask: AskUserQuestion → `question` with its
 * first question's options as choices, ExitPlanMode → `plan_review`, every other tool →
 * `permission` with the CLI's suggestions in `details`; permissions and plan reviews are
 * `inputEditable` (an `allow` carries the edited input). `modelInput` is the tool call's input as
 * the model sent it (used where the CLI's request omits it).
 */
export function toApprovalAsk(request: CanUseToolRequest, modelInput?: unknown): ApprovalAsk {
  const input = (request.input ?? {}) as Record<string, unknown>;
  const common = {
    toolName: request.tool_name,
    ...(request.tool_use_id ? { toolCallId: request.tool_use_id } : {}),
    input: request.input,
  };
  if (request.tool_name === QUESTION_TOOL) {
    const questions = (Array.isArray(input.questions) ? input.questions : []) as Question[];
    const first = questions[0];
    return {
      kind: "question",
      title: first?.question ?? "Question",
      ...common,
      choices: (first?.options ?? []).flatMap((option) =>
        option.label
          ? [{ key: option.label, label: option.label, ...(option.description ? { description: option.description } : {}) }]
          : [],
      ),
      details: { questions },
    };
  }
  if (request.tool_name === PLAN_TOOL) {
    // The CLI sends ExitPlanMode's request with an empty input; the plan is in the model's call.
    const plan = input.plan ?? (modelInput as { plan?: unknown } | undefined)?.plan;
    return { kind: "plan_review", title: "Review plan", ...common, inputEditable: true, details: { plan } };
  }
  const subject = input.command ?? input.file_path ?? input.path ?? input.url ?? request.description;
  return {
    kind: "permission",
    title: typeof subject === "string" && subject ? `${request.tool_name}: ${subject}` : request.tool_name,
    ...common,
    // The CLI runs an `allow`'s `updatedInput` in place of the proposed input.
    inputEditable: true,
    details: {
      ...(request.description ? { description: request.description } : {}),
      ...(request.permission_suggestions ? { permissionSuggestions: request.permission_suggestions } : {}),
      ...(request.blocked_path ? { blockedPath: request.blocked_path } : {}),
    },
  };
}

/**
 * The `can_use_tool` answer for a decision. A question's answer is an `allow` whose input carries
 * `answers: { <question text>: <choice> }` for every question (the same choice), which is how the
 * CLI hands the answer to the model.
 */
export function toPermissionAnswer(
  request: CanUseToolRequest,
  decision: ApprovalDecision,
): { behavior: "allow"; updatedInput: unknown } | { behavior: "deny"; message: string } {
  switch (decision.outcome) {
    case "approve":
      return { behavior: "allow", updatedInput: decision.updatedInput !== undefined ? decision.updatedInput : request.input };
    case "deny":
      return { behavior: "deny", message: decision.reason };
    case "answer": {
      const input = (request.input ?? {}) as Record<string, unknown>;
      const questions = (Array.isArray(input.questions) ? input.questions : []) as Question[];
      const answers = Object.fromEntries(questions.map((q) => [q.question ?? "", decision.choice]));
      return { behavior: "allow", updatedInput: { ...input, answers } };
    }
  }
}
