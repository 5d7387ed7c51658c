// The approval broker on an `elicitation` ask (a scripted driver): its default mode declines it
// unasked, `ask` hands it to the host, and the host's answer reaches the driver only once its form
// content matches the requested schema.
import { describe, expect, it } from "vitest";
import type { ApprovalDecision } from "@adaptor/driver";
import { elicitationAsk } from "@adaptor/driver/kit";
import { Agent, InvalidOptionError, type ApprovalRequest } from "../src/index.js";
import { scriptedDriver } from "./scripted-driver.js";

const FORM = elicitationAsk({
  server: "crm",
  message: "Who are you?",
  mode: "form",
  requestedSchema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] },
});

function elicitingDriver() {
  const decisions: ApprovalDecision[] = [];
  const driver = scriptedDriver(async (_request, sink) => {
    decisions.push(await sink.requestApproval(FORM));
    return { text: "ok" };
  });
  return { driver, decisions };
}

describe("elicitation approvals", () => {
  it("unset mode: declined without asking the host (the deny the driver gets is the policy's)", async () => {
    const { driver, decisions } = elicitingDriver();
    const asked: ApprovalRequest[] = [];
    await using agent = new Agent(driver, { onApproval: (request) => void asked.push(request) });
    await agent.run("go");
    expect(asked).toEqual([]);
    expect(decisions).toEqual([{ outcome: "deny", reason: "denied by policy" }]);
  });

  it.each([
    ["unset", {}],
    ["set to auto_deny", { elicitation: "auto_deny" as const }],
  ])(
    "elicitation mode %s with onReject abort: declined and the run completes (onReject is for the host's denials)",
    async (_name, modes) => {
      const { driver, decisions } = elicitingDriver();
      await using agent = new Agent(driver);
      const result = await agent.run("go", { policy: { approvals: { ...modes, onReject: "abort" } } });
      expect(result.status).toBe("completed");
      expect(result.text).toBe("ok");
      expect(decisions).toEqual([{ outcome: "deny", reason: "denied by policy" }]);
    },
  );

  it("ask: invalid content throws InvalidOptionError and leaves the request pending; valid content reaches the driver as the approve's updatedInput", async () => {
    const { driver, decisions } = elicitingDriver();
    const refusals: unknown[] = [];
    await using agent = new Agent(driver, {
      policy: { approvals: { elicitation: "ask" } },
      onApproval: (request) => {
        try {
          request.approve({ updatedInput: { name: 1 } });
        } catch (error) {
          refusals.push(error);
        }
        expect(request.status).toBe("pending");
        request.approve({ updatedInput: { name: "Ada" } });
      },
    });
    await agent.run("go");
    expect(refusals).toEqual([expect.any(InvalidOptionError)]);
    expect(decisions).toEqual([{ outcome: "approve", updatedInput: { name: "Ada" } }]);
  });

  it("content JSON cannot carry (a bigint, a cycle, a throwing getter) is refused at approve() and the request stays pending; what is checked is what is sent, whatever the host's object does later", async () => {
    const { driver, decisions } = elicitingDriver();
    const cycle: Record<string, unknown> = { name: "Ann" };
    cycle["self"] = cycle;
    const refused: unknown[] = [];
    const mutable = { name: "Ada" };
    await using agent = new Agent(driver, {
      policy: { approvals: { elicitation: "ask" } },
      onApproval: (request) => {
        for (const content of [
          { name: "Ann", extra: 10n },
          cycle,
          Object.defineProperty({ name: "Ann" }, "boom", {
            enumerable: true,
            get: () => {
              throw new Error("getter boom");
            },
          }),
        ])
          try {
            request.approve({ updatedInput: content });
          } catch (error) {
            refused.push(error);
          }
        expect(request.status).toBe("pending");
        request.approve({ updatedInput: mutable });
        (mutable as { name: unknown }).name = 7;
      },
    });
    await agent.run("go");
    expect(refused.map((error) => (error instanceof InvalidOptionError ? error.field : error))).toEqual([
      "updatedInput",
      "updatedInput",
      "updatedInput",
    ]);
    expect(decisions).toEqual([{ outcome: "approve", updatedInput: { name: "Ada" } }]);
  });

  it("answer() with a choice that is not a string is InvalidOptionError (field choice) and the request stays pending", async () => {
    const { driver, decisions } = elicitingDriver();
    const refused: unknown[] = [];
    await using agent = new Agent(driver, {
      policy: { approvals: { elicitation: "ask" } },
      onApproval: (request) => {
        for (const choice of [5, null, undefined, { key: "accept" }])
          try {
            request.answer(choice as never);
          } catch (error) {
            refused.push(error instanceof InvalidOptionError ? error.field : error);
          }
        expect(request.status).toBe("pending");
        request.answer("decline");
      },
    });
    await agent.run("go");
    expect(refused).toEqual(["choice", "choice", "choice", "choice"]);
    expect(decisions).toEqual([{ outcome: "answer", choice: "decline" }]);
  });

  it("auto_approve is out of the elicitation's domain (InvalidPolicyError) and remember is refused", async () => {
    const { driver } = elicitingDriver();
    await using agent = new Agent(driver);
    await expect(agent.run("go", { policy: { approvals: { elicitation: "auto_approve" as never } } })).rejects.toMatchObject({
      field: "approvals.elicitation",
    });
    const { driver: asking } = elicitingDriver();
    const thrown: unknown[] = [];
    await using second = new Agent(asking, {
      policy: { approvals: { elicitation: "ask" } },
      onApproval: (request) => {
        try {
          request.deny("no", { remember: { toolName: "crm" } });
        } catch (error) {
          thrown.push(error);
        }
        request.answer("cancel");
      },
    });
    await second.run("go");
    expect(thrown).toEqual([expect.objectContaining({ field: "remember" })]);
  });
});
