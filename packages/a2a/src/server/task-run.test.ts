import { describe, expect, it } from "vitest";
import { answerFits, approvalMessage } from "./task-run.js";

const CHOICES = [
  { key: "accept", label: "Allow once" },
  { key: "acceptForSession", label: "Allow for this session" },
];

describe("A2A answers to a permission with choices", () => {
  it("the input-required message tells how to answer one of its choices", () => {
    const message = approvalMessage("t", "c", { id: "a-1", kind: "permission", title: "shell: ls", choices: CHOICES, waiting: 1 });
    expect(JSON.stringify(message.parts)).toContain(
      'shell: ls (answer with { decision: \\"approve\\" }, { decision: \\"deny\\", reason } or { decision: \\"answer\\", choice } (choice one of \\"accept\\", \\"acceptForSession\\"))',
    );
  });

  it("an answer fits with a listed choice, not with another or without one; a permission without choices takes none", () => {
    const ask = { id: "a-1", kind: "permission", choices: CHOICES };
    expect(answerFits(ask, { decision: "answer", choice: "acceptForSession" })).toBe(true);
    expect(answerFits(ask, { decision: "answer", choice: "always" })).toBe(false);
    expect(answerFits(ask, { decision: "answer" })).toBe(false);
    expect(answerFits(ask, { decision: "approve" })).toBe(true);
    expect(answerFits({ id: "a-2", kind: "permission" }, { decision: "answer", choice: "accept" })).toBe(false);
    expect(answerFits({ id: "a-3", kind: "question", choices: CHOICES }, { decision: "answer", choice: "free text" })).toBe(true);
    expect(answerFits({ id: "a-3", kind: "question" }, { decision: "approve" })).toBe(false);
  });
});
