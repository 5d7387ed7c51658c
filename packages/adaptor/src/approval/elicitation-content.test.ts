import { describe, expect, it } from "vitest";
import { InvalidOptionError } from "@adaptor/errors";
import { elicitationAsk } from "@adaptor/driver/kit";
import { isError } from "@adaptor/errors";
import { ErrApprovalKindMismatch } from "../errors/sentinels.js";
import { askFactsOf, decisionRefusal } from "./approval-request.js";

const FORM = elicitationAsk({
  server: "crm",
  message: "Who are you?",
  mode: "form",
  requestedSchema: {
    type: "object",
    properties: {
      name: { type: "string" },
      age: { type: "integer", minimum: 0 },
      tier: { type: "string", enum: ["a", "b"], enumNames: ["A", "B"] },
    },
    required: ["name"],
  },
});
const URL_ASK = elicitationAsk({ server: "crm", message: "Sign in", mode: "url", url: "https://example.com/x", elicitationId: "e1" });

/** The facts of an ask as a stored or fleet request (JSON) carries them. */
const facts = (ask: typeof FORM) => askFactsOf("a1", JSON.parse(JSON.stringify(ask)));

describe("elicitation answers are checked before anything is sent", () => {
  it("form content valid against the requested schema passes (an unknown keyword such as MCP's enumNames is ignored)", () => {
    expect(
      decisionRefusal(facts(FORM), { outcome: "approve", updatedInput: { name: "Ada", age: 3, tier: "a" } }, "approve()"),
    ).toBeUndefined();
  });

  it.each([
    ["a missing required field", { age: 3 }, "must have required property 'name'"],
    ["a wrong type", { name: 7 }, "/name: must be string"],
    ["a value out of range", { name: "Ada", age: -1 }, "/age: must be >= 0"],
    ["a value outside the enum", { name: "Ada", tier: "c" }, "/tier: must be equal to one of the allowed values"],
  ])("form content with %s is InvalidOptionError (field updatedInput), the request not denied", (_name, content, message) => {
    const refused = decisionRefusal(facts(FORM), { outcome: "approve", updatedInput: content }, "approve()");
    expect(refused?.denies).toBe(false);
    expect(refused?.error).toBeInstanceOf(InvalidOptionError);
    expect(refused?.error).toMatchObject({ field: "updatedInput" });
    expect(refused?.error.message).toContain(message);
  });

  it("accepting a form without content checks {} (a required field makes it refused); content that is not a plain object is refused", () => {
    expect(decisionRefusal(facts(FORM), { outcome: "approve" }, "approve()")?.error.message).toContain("required property 'name'");
    expect(decisionRefusal(facts(FORM), { outcome: "answer", choice: "accept" }, "answer()")?.error.message).toContain(
      "required property 'name'",
    );
    expect(decisionRefusal(facts(FORM), { outcome: "approve", updatedInput: ["x"] }, "approve()")?.error).toMatchObject({
      field: "updatedInput",
    });
  });

  it("a URL elicitation is accepted without content and refuses content", () => {
    expect(decisionRefusal(facts(URL_ASK), { outcome: "approve" }, "approve()")).toBeUndefined();
    const refused = decisionRefusal(facts(URL_ASK), { outcome: "approve", updatedInput: { token: "x" } }, "approve()");
    expect(refused?.error).toMatchObject({ field: "updatedInput" });
    expect(refused?.error.message).toContain("takes no content");
  });

  it("a form schema that names draft-07 in $schema (as MCP servers send it) is still checked", () => {
    const draft07 = elicitationAsk({
      server: "crm",
      message: "Who are you?",
      mode: "form",
      requestedSchema: {
        $schema: "http://json-schema.org/draft-07/schema#",
        type: "object",
        properties: { name: { type: "string" } },
        required: ["name"],
      },
    });
    expect(decisionRefusal(facts(draft07), { outcome: "approve", updatedInput: { name: "Ada" } }, "approve()")).toBeUndefined();
    const refused = decisionRefusal(facts(draft07), { outcome: "approve", updatedInput: { name: 7 } }, "approve()");
    expect(refused?.denies).toBe(false);
    expect(refused?.error).toMatchObject({ field: "updatedInput" });
    expect(refused?.error.message).toContain("/name: must be string");
  });

  it("a form schema that cannot be compiled refuses every accepting answer (fail closed); decline and cancel still fit", () => {
    const broken = elicitationAsk({
      server: "crm",
      message: "Who are you?",
      mode: "form",
      requestedSchema: { type: "object", properties: { name: { $ref: "#/$defs/missing" } } },
    });
    for (const decision of [
      { outcome: "approve", updatedInput: { name: "Ada" } },
      { outcome: "approve" },
      { outcome: "answer", choice: "accept" },
    ] as const) {
      const refused = decisionRefusal(facts(broken), decision, "approve()");
      expect(refused?.denies).toBe(false);
      expect(refused?.error).toBeInstanceOf(InvalidOptionError);
      expect(refused?.error).toMatchObject({ field: "updatedInput" });
      expect(refused?.error.message).toContain("cannot be compiled");
    }
    expect(decisionRefusal(facts(broken), { outcome: "answer", choice: "decline" }, "answer()")).toBeUndefined();
    expect(decisionRefusal(facts(broken), { outcome: "deny", reason: "no" }, "deny()")).toBeUndefined();
  });

  it("decline, cancel and the listed actions fit; another answer key is InvalidOptionError (field choice)", () => {
    expect(decisionRefusal(facts(FORM), { outcome: "deny", reason: "no" }, "deny()")).toBeUndefined();
    expect(decisionRefusal(facts(FORM), { outcome: "answer", choice: "cancel" }, "answer()")).toBeUndefined();
    expect(decisionRefusal(facts(FORM), { outcome: "answer", choice: "decline" }, "answer()")).toBeUndefined();
    const other = decisionRefusal(facts(FORM), { outcome: "answer", choice: "later" }, "answer()");
    expect(other?.error).toMatchObject({ field: "choice" });
    expect(isError(other?.error, ErrApprovalKindMismatch)).toBe(false);
  });
});
