import type { ApprovalAsk, ApprovalDecision } from "@adaptor/driver";
import type { ToolRequestUserInputParams } from "../protocol/generated/v2/ToolRequestUserInputParams.js";
import type { ToolRequestUserInputQuestion } from "../protocol/generated/v2/ToolRequestUserInputQuestion.js";

/**
 * The server request codex 0.171.0 sends when the model calls `request_user_input` (offered in the
 * default collaboration mode only with the feature `default_mode_request_user_input`, which the
 * driver enables under `approvals.question` `ask`).
 */
export const USER_INPUT_METHOD = "item/tool/requestUserInput";

/** The feature that lets the model call `request_user_input` outside codex's plan mode. */
export const USER_INPUT_FEATURE = "features.default_mode_request_user_input";

/** codex's answer to a {@link USER_INPUT_METHOD} request (its `ToolRequestUserInputResponse`): the answers by question id. */
export interface UserInputAnswer {
  readonly answers: Record<string, { readonly answers: string[] }>;
}

/** The name of codex's question tool, as the `question` asks name it. */
const QUESTION_TOOL = "request_user_input";

/** The questions of a {@link USER_INPUT_METHOD} request (none for malformed params). */
export function userInputQuestions(params: unknown): readonly ToolRequestUserInputQuestion[] {
  const questions = (params as Partial<ToolRequestUserInputParams> | undefined)?.questions;
  return Array.isArray(questions) ? questions.filter((q) => typeof q?.id === "string" && typeof q.question === "string") : [];
}

/**
 * The `question` ask for question `index` of a {@link USER_INPUT_METHOD} request: `title` the
 * question, `choices` its options (key and label the option's label, which is what codex hands the
 * model), `toolName` `request_user_input`, `toolCallId` the call's item id, `input` the whole
 * request's questions, and `details` `{ questionId, header, index, count, isOther, isSecret }`
 * (`isOther`: codex takes free text besides the options).
 */
export function userInputAsk(params: unknown, index: number): ApprovalAsk {
  const questions = userInputQuestions(params);
  const question = questions[index]!;
  const itemId = (params as Partial<ToolRequestUserInputParams> | undefined)?.itemId;
  return {
    kind: "question",
    title: question.question,
    toolName: QUESTION_TOOL,
    ...(typeof itemId === "string" ? { toolCallId: itemId } : {}),
    input: { questions },
    choices: (question.options ?? []).map((option) => ({
      key: option.label,
      label: option.label,
      ...(option.description ? { description: option.description } : {}),
    })),
    details: {
      questionId: question.id,
      header: question.header,
      index,
      count: questions.length,
      isOther: question.isOther,
      isSecret: question.isSecret,
    },
  };
}

/**
 * Asks the questions of a {@link USER_INPUT_METHOD} request one at a time, in order, through
 * `ask`, and gathers codex's answer: each `answer(choice)` is that question's answer; the first
 * other decision (a deny, an expiry) stops the asking, and the questions from there on stay
 * unanswered (codex hands the model the answers it got). Resolves with the answer and the deny
 * that stopped it, if any.
 */
export async function askUserInput(
  params: unknown,
  ask: (ask: ApprovalAsk) => Promise<ApprovalDecision>,
): Promise<{ readonly answer: UserInputAnswer; readonly denied?: { readonly ask: ApprovalAsk; readonly reason: string } }> {
  const answers: Record<string, { answers: string[] }> = {};
  const questions = userInputQuestions(params);
  for (let index = 0; index < questions.length; index++) {
    const question = userInputAsk(params, index);
    const decision = await ask(question);
    if (decision.outcome !== "answer") {
      return { answer: { answers }, denied: { ask: question, reason: decision.outcome === "deny" ? decision.reason : "not answered" } };
    }
    answers[questions[index]!.id] = { answers: [decision.choice] };
  }
  return { answer: { answers } };
}
