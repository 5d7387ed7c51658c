import { describe, expect, it } from "vitest";
import { ApprovalRequest, ErrApprovalUnavailable, isError } from "adaptor";
import { HttpError } from "../http/http-error.js";
import { answerApproval } from "./answer-approval.js";

/** A request without a responder: a decision that fits it reaches the responder check (ErrApprovalUnavailable). */
const request = (kind: "permission" | "question", choices?: { key: string; label: string }[]) =>
  new ApprovalRequest({ id: "a-1", runId: "r-1", kind, title: "shell: ls", choices, createdAt: new Date(0), attempt: 1 });

const refusal = (call: () => unknown): unknown => {
  try {
    call();
  } catch (error) {
    return error;
  }
  return undefined;
};

describe("POST approvals/<id>: answers a permission's choices", () => {
  const CHOICES = [
    { key: "once", label: "Allow once" },
    { key: "always", label: "Always allow" },
  ];

  it("a choice the permission lists fits (it goes on to the request's responder)", () => {
    expect(
      isError(
        refusal(() => answerApproval(request("permission", CHOICES), { decision: "answer", choice: "always" })),
        ErrApprovalUnavailable,
      ),
    ).toBe(true);
  });

  it("a choice it does not list is 422 approval_invalid_choice, the message listing the choices", () => {
    const error = refusal(() => answerApproval(request("permission", CHOICES), { decision: "answer", choice: "forever" }));
    expect(error).toBeInstanceOf(HttpError);
    expect(error).toMatchObject({ status: 422, code: "approval_invalid_choice" });
    expect((error as Error).message).toContain('(its choices: "once", "always")');
  });

  it("an answer on a permission without choices is 422 approval_kind_mismatch", () => {
    expect(refusal(() => answerApproval(request("permission"), { decision: "answer", choice: "once" }))).toMatchObject({
      status: 422,
      code: "approval_kind_mismatch",
    });
  });
});

describe("POST approvals/<id>: an elicitation's form content", () => {
  const elicitation = () =>
    new ApprovalRequest({
      id: "e-1",
      runId: "r-1",
      kind: "elicitation",
      title: "crm: Who are you?",
      choices: [
        { key: "accept", label: "Accept" },
        { key: "decline", label: "Decline" },
        { key: "cancel", label: "Cancel" },
      ],
      details: {
        server: "crm",
        message: "Who are you?",
        mode: "form",
        requestedSchema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] },
      },
      inputEditable: true,
      createdAt: new Date(0),
      attempt: 1,
    });

  it("content that does not match the requested schema is 422 approval_invalid_input (nothing decided)", () => {
    const request = elicitation();
    const error = refusal(() => answerApproval(request, { decision: "approve", updatedInput: { name: 7 } }));
    expect(error).toMatchObject({ status: 422, code: "approval_invalid_input" });
    expect((error as Error).message).toContain("/name: must be string");
    expect(request.status).toBe("pending");
  });

  it("content that matches goes on to the request's responder", () => {
    expect(
      isError(
        refusal(() => answerApproval(elicitation(), { decision: "approve", updatedInput: { name: "Ada" } })),
        ErrApprovalUnavailable,
      ),
    ).toBe(true);
  });
});
