// checkRunInput refuses, without an Agent, what agent.run refuses before launch, with the same error.
import { describe, expect, it } from "vitest";
import { InvalidPolicyError } from "@adaptor/driver";
import { Agent, InvalidOptionError, MalformedStringError, checkRunInput, type Prompt, type RunOptions } from "../src/index.js";
import { scriptedDriver } from "./scripted-driver.js";

const REFUSED: [string, unknown, unknown, new (...args: never[]) => Error, string][] = [
  ["an empty prompt", "", {}, InvalidOptionError, "prompt"],
  ["a whitespace-only prompt", " \n\t", {}, InvalidOptionError, "prompt"],
  ["a list of empty text parts", ["", { type: "text", text: " " }], {}, InvalidOptionError, "prompt"],
  ["a prompt that is not a string or parts", 42, {}, InvalidOptionError, "prompt"],
  ["a lone surrogate", "a\uD800", {}, MalformedStringError, "prompt"],
  ["an unknown run option", "hi", { modle: "x" }, InvalidOptionError, "modle"],
  ["a mistyped run option", "hi", { timeoutMs: "soon" }, InvalidOptionError, "timeoutMs"],
  ["an effort level that is not one of the known levels", "hi", { effort: "extreme" }, InvalidOptionError, "effort"],
  ["an unknown policy field", "hi", { policy: { sandboxx: "read_only" } }, InvalidPolicyError, "sandboxx"],
  ["an unknown approvals field", "hi", { policy: { approvals: { permision: "ask" } } }, InvalidPolicyError, "approvals.permision"],
  ["a policy value out of its domain", "hi", { policy: { sandbox: "everything" } }, InvalidPolicyError, "sandbox"],
  ["suspend outside a thread", "hi", { suspend: {} }, InvalidOptionError, "suspend"],
  ["checkpointFiles outside a thread", "hi", { checkpointFiles: true }, InvalidOptionError, "checkpointFiles"],
];

describe("checkRunInput", () => {
  it.each(REFUSED)("refuses %s like agent.run does, with the same typed error and field", async (_name, prompt, options, type, field) => {
    const driver = scriptedDriver(async () => ({ text: "ok" }));
    await using agent = new Agent(driver);
    const byRun = await agent.run(prompt as Prompt, options as RunOptions).catch((e: unknown) => e);
    expect(byRun).toBeInstanceOf(type);
    expect((byRun as { field: string }).field).toBe(field);
    let byCheck: unknown;
    try {
      checkRunInput(prompt, options, { driver: driver.descriptor.type, threadTurn: false });
    } catch (error) {
      byCheck = error;
    }
    expect(byCheck).toBeInstanceOf(type);
    expect((byCheck as Error).message).toBe((byRun as Error).message);
    expect(driver.requests).toHaveLength(0);
  });

  it("accepts a prompt with text and known options, and an image without text, reading nothing", () => {
    expect(() => checkRunInput("hi", { model: "m", policy: { sandbox: "read_only", approvals: { permission: "ask" } } })).not.toThrow();
    expect(() => checkRunInput([{ type: "image", path: "/nonexistent/image.png" }], undefined)).not.toThrow();
    expect(() => checkRunInput("hi", null)).not.toThrow();
    // A thread turn (or one not known to be none) takes the thread-only options.
    expect(() => checkRunInput("hi", { suspend: {}, checkpointFiles: true }, { threadTurn: true })).not.toThrow();
    expect(() => checkRunInput("hi", { suspend: {}, checkpointFiles: true })).not.toThrow();
    // A resume runs its suspended turn's stored prompt: its own may be empty.
    expect(() => checkRunInput("", {}, { threadTurn: true, resume: true })).not.toThrow();
  });
});
