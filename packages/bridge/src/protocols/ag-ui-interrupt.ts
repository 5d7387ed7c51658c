import type { Interrupt, ResumeEntry } from "@ag-ui/core";
import type { PendingApproval } from "adaptor";
import { approvalAnswerJsonSchema, decisionOf, parseApprovalAnswer, type BridgeResume } from "../approvals/answer-approval.js";
import { HttpError } from "../http/http-error.js";

/** The `reason` of the AG-UI interrupt a suspended turn ends its run with. */
export const AG_UI_APPROVAL_INTERRUPT = "adaptor.approval";

/** The reason recorded in the denial a resume entry with status `cancelled` makes. */
export const INTERRUPT_CANCELLED_REASON = "the client cancelled the interrupt";

/**
 * The AG-UI interrupt of a suspended turn's stored approval: `id` is the approval's id (a resume
 * entry answers it by that id), `reason` {@link AG_UI_APPROVAL_INTERRUPT}, `message` its title,
 * `toolCallId`, `expiresAt` its deadline (ISO 8601), `responseSchema` the JSON Schema of the
 * decision a resume payload holds, and `metadata` `{ kind, toolName?, input?, choices?, inputEditable }`:
 * `inputEditable` (as the `raw` protocol's approvals carry it) says whether an approve with an edited
 * `updatedInput` runs the edit; false when the driver cannot (such an approve is applied as a deny).
 */
export function approvalInterrupt(pending: PendingApproval, inputEditable = false): Interrupt {
  return {
    id: pending.id,
    reason: AG_UI_APPROVAL_INTERRUPT,
    message: pending.title,
    ...(pending.toolCallId !== undefined ? { toolCallId: pending.toolCallId } : {}),
    ...(pending.deadline !== undefined ? { expiresAt: pending.deadline.toISOString() } : {}),
    responseSchema: approvalAnswerJsonSchema(),
    metadata: {
      kind: pending.kind,
      ...(pending.toolName !== undefined ? { toolName: pending.toolName } : {}),
      ...(pending.input !== undefined ? { input: pending.input } : {}),
      ...(pending.choices !== undefined ? { choices: pending.choices } : {}),
      inputEditable,
    },
  };
}

/**
 * The approval a resume run answers and its decision: one entry (a suspended turn waits for one
 * approval); status `cancelled` denies with {@link INTERRUPT_CANCELLED_REASON}, status `resolved`
 * takes the decision from `payload` (`{ decision: "approve", updatedInput? }`,
 * `{ decision: "deny", reason? }` or `{ decision: "answer", choice }`, as `POST approvals/<id>`
 * takes them).
 *
 * @throws HttpError 400 for more than one entry or a payload that is not such a decision.
 */
export function resumeAnswer(resume: readonly ResumeEntry[]): BridgeResume {
  if (resume.length !== 1)
    throw new HttpError(400, "bad_request", `a resume answers the one approval a suspended turn waits for, got ${resume.length} entries`);
  const entry = resume[0]!;
  if (entry.status === "cancelled")
    return { approvalId: entry.interruptId, decision: { outcome: "deny", reason: INTERRUPT_CANCELLED_REASON } };
  const decision = decisionOf(parseApprovalAnswer(entry.payload, "the resume payload"));
  return { approvalId: entry.interruptId, decision };
}
