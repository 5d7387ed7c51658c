import { z } from "zod";
import {
  ErrApprovalEditUnsupported,
  ErrApprovalExpired,
  ErrApprovalKindMismatch,
  ErrApprovalResolved,
  isError,
  type ApprovalDecision,
  type ApprovalRequest,
  type RememberRule,
} from "adaptor";
import { InvalidOptionError } from "@adaptor/errors";
import { toJsonSchema } from "@adaptor/tool/internal";
import { HttpError } from "../http/http-error.js";

/**
 * The body of `POST approvals/<id>`: one decision. `remember` (on an approve or a deny of a live
 * request, not a resume's): a rule the run remembers, as `request.approve({ remember })` and
 * `request.deny(reason, { remember })` take it (one of the request's `suggestions`, or one the
 * client writes); the SDK checks it as in process.
 */
export type ApprovalAnswer =
  | { readonly decision: "approve"; readonly updatedInput?: Readonly<Record<string, unknown>>; readonly remember?: RememberRule }
  | { readonly decision: "deny"; readonly reason?: string; readonly remember?: RememberRule }
  | { readonly decision: "answer"; readonly choice: string };

/** What a resume run answers: a suspended turn's stored approval, by id, and the decision. */
export interface BridgeResume {
  readonly approvalId: string;
  readonly decision: ApprovalDecision;
}

const APPROVAL_ANSWER = z.discriminatedUnion("decision", [
  z.object({ decision: z.literal("approve"), updatedInput: z.record(z.string(), z.unknown()).optional() }).strict(),
  z.object({ decision: z.literal("deny"), reason: z.string().max(4_096).optional() }).strict(),
  z.object({ decision: z.literal("answer"), choice: z.string().max(4_096) }).strict(),
]);

/**
 * A live request's answer: an approve or a deny may carry `remember`, any JSON here (its rule is
 * checked by the SDK, so a malformed one is refused as in process, 422 `approval_invalid_remember`).
 */
const LIVE_APPROVAL_ANSWER = z.discriminatedUnion("decision", [
  z.object({ decision: z.literal("approve"), updatedInput: z.record(z.string(), z.unknown()).optional(), remember: z.unknown() }).strict(),
  z.object({ decision: z.literal("deny"), reason: z.string().max(4_096).optional(), remember: z.unknown() }).strict(),
  z.object({ decision: z.literal("answer"), choice: z.string().max(4_096) }).strict(),
]);

let answerJsonSchema: Readonly<Record<string, unknown>> | undefined;

/** The JSON Schema of an {@link ApprovalAnswer}, derived from the schema the bridge checks answers with (built once, on first use). */
export function approvalAnswerJsonSchema(): Readonly<Record<string, unknown>> {
  answerJsonSchema ??= Object.freeze(toJsonSchema(APPROVAL_ANSWER));
  return answerJsonSchema;
}

/** The reason recorded when an answer denies without one. */
export const DENIED_BY_CLIENT_REASON = "denied by the client";

/**
 * Checks that `value` is an {@link ApprovalAnswer} (`what` names it in the message). `remember` is
 * taken only with `live` (`POST approvals/<id>`, a request a run waits on): a resume's answer has none.
 * @throws HttpError 400 naming what is wrong.
 */
export function parseApprovalAnswer(value: unknown, what: string, live = false): ApprovalAnswer {
  const parsed = (live ? LIVE_APPROVAL_ANSWER : APPROVAL_ANSWER).safeParse(value);
  if (!parsed.success) {
    throw new HttpError(
      400,
      "bad_request",
      `expected { "decision": "approve" | "deny" | "answer", ... }${what === "body" ? "" : ` as ${what}`}: ` +
        parsed.error.issues.map((issue) => `${issue.path.join(".") || what}: ${issue.message}`).join("; "),
    );
  }
  return parsed.data as ApprovalAnswer;
}

/** The rule an answer asks the run to remember, if any. */
export function rememberOf(answer: ApprovalAnswer): RememberRule | undefined {
  return answer.decision !== "answer" && "remember" in answer ? answer.remember : undefined;
}

/** The decision an {@link ApprovalAnswer} makes (a denial without a reason gets {@link DENIED_BY_CLIENT_REASON}). */
export function decisionOf(answer: ApprovalAnswer): ApprovalDecision {
  if (answer.decision === "approve")
    return { outcome: "approve", ...(answer.updatedInput !== undefined ? { updatedInput: answer.updatedInput } : {}) };
  if (answer.decision === "deny") return { outcome: "deny", reason: answer.reason ?? DENIED_BY_CLIENT_REASON };
  return { outcome: "answer", choice: answer.choice };
}

/**
 * Applies a client's answer to `request`, exactly once.
 * @throws HttpError 400 for a malformed body (an `updatedInput` that is not a plain object too), 409 when another answer already won, 410 when the
 *   request expired (its deadline passed or its run ended), 422 when the decision does not fit
 *   the request or its `remember` is refused (see {@link unfitAnswerError}; nothing is decided), or (`approval_edit_unsupported`) for an
 *   `updatedInput` the agent cannot run (the request was denied).
 */
export function answerApproval(request: ApprovalRequest, body: unknown): { readonly id: string; readonly status: string } {
  const answer = parseApprovalAnswer(body, "body", true);
  const remember = rememberOf(answer);
  const remembered = remember !== undefined ? { remember } : {};
  try {
    if (answer.decision === "approve")
      request.approve({ ...(answer.updatedInput !== undefined ? { updatedInput: answer.updatedInput } : {}), ...remembered });
    else if (answer.decision === "deny") request.deny(answer.reason, remembered);
    else request.answer(answer.choice);
  } catch (error) {
    // Expired also matches resolved: test it first.
    if (isError(error, ErrApprovalExpired))
      throw new HttpError(410, "approval_expired", `approval ${request.id} expired`, { status: request.status });
    if (isError(error, ErrApprovalResolved))
      throw new HttpError(409, "approval_resolved", `approval ${request.id} was already answered`, { status: request.status });
    const unfit = unfitAnswerError(error, answer.decision, request.kind);
    if (unfit) throw unfit;
    if (isError(error, ErrApprovalEditUnsupported))
      throw new HttpError(
        422,
        "approval_edit_unsupported",
        `approval ${request.id}: this agent cannot run an edited input; the request was denied`,
        {
          status: request.status,
        },
      );
    throw error;
  }
  return { id: request.id, status: request.status };
}

/**
 * The 422 answer for a decision the approval refuses without deciding anything, or undefined for
 * another error: `approval_kind_mismatch` (`ErrApprovalKindMismatch`: the outcome does not fit the
 * kind) or `approval_invalid_choice` (`InvalidOptionError` field `choice`: an answer the
 * permission's `choices` do not list; the message lists them) or `approval_invalid_input`
 * (`InvalidOptionError` field `updatedInput`: an elicitation's form content that does not match its
 * requested schema, or content on a URL elicitation; nothing was sent) or `approval_invalid_remember`
 * (`InvalidOptionError` field `remember` or `remember.<field>`: a malformed rule, one that does
 * not match the request, an allow under a confining policy; the message names the field, which
 * `field` carries too).
 */
export function unfitAnswerError(error: unknown, decision: string, kind: string): HttpError | undefined {
  if (isError(error, ErrApprovalKindMismatch))
    return new HttpError(422, "approval_kind_mismatch", `decision ${decision} does not fit a ${kind} request`);
  if (error instanceof InvalidOptionError && error.field === "choice") return new HttpError(422, "approval_invalid_choice", error.reason);
  if (error instanceof InvalidOptionError && error.field === "updatedInput")
    return new HttpError(422, "approval_invalid_input", error.reason);
  if (error instanceof InvalidOptionError && (error.field === "remember" || error.field.startsWith("remember.")))
    return new HttpError(422, "approval_invalid_remember", `${error.field} ${error.reason}`, { field: error.field });
  return undefined;
}
