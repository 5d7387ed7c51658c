import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { Agent, ErrFeatureUnsupported, FeatureUnsupportedError, InvalidOptionError, RunError, findError, isError } from "../src/index.js";
import { scriptedDriver } from "./scripted-driver.js";

/** A scripted driver whose descriptor lists `modes` as its system prompt capability. */
function driverWith(modes: readonly ("replace" | "append")[] | undefined) {
  const driver = scriptedDriver(async () => ({ text: "ok" }));
  const capabilities = { ...driver.descriptor.capabilities, ...(modes ? { systemPrompt: modes } : {}) };
  return Object.assign(driver, { descriptor: { ...driver.descriptor, capabilities } });
}

describe("the systemPrompt run option", () => {
  it("reaches the driver as replace (a string) or append ({ append }); a call's value replaces the agent's", async () => {
    const driver = driverWith(["replace", "append"]);
    await using agent = new Agent(driver, { systemPrompt: { append: "agent default" } });
    await agent.run("one");
    await agent.run("two", { systemPrompt: "You are the release bot." });
    expect(driver.requests.map((r) => r.systemPrompt)).toEqual([
      { mode: "append", text: "agent default" },
      { mode: "replace", text: "You are the release bot." },
    ]);
  });

  it("a driver that cannot deliver the mode refuses the run before it starts with FeatureUnsupportedError", async () => {
    const none = driverWith(undefined);
    await using agent = new Agent(none);
    const refused = await agent.run("hi", { systemPrompt: "x" }).catch((e: unknown) => e);
    expect(isError(refused, ErrFeatureUnsupported)).toBe(true);
    expect(findError(refused, FeatureUnsupportedError)).toMatchObject({ driver: "scripted", feature: "systemPrompt" });
    expect(none.requests).toHaveLength(0);

    const appendOnly = driverWith(["append"]);
    await using other = new Agent(appendOnly);
    expect(findError(await other.run("hi", { systemPrompt: "x" }).catch((e: unknown) => e), FeatureUnsupportedError)?.reason).toMatch(
      /cannot replace the system prompt \(it can only append it\)/,
    );
    await other.run("hi", { systemPrompt: { append: "x" } });
    expect(appendOnly.requests).toHaveLength(1);
  });

  it("an empty text, an object without append, an unknown key or a NUL is refused with a typed error naming the field", async () => {
    await using agent = new Agent(driverWith(["replace", "append"]));
    for (const value of ["", "   ", {}, { append: "" }, { append: "x", extra: 1 }, 42, "a\u0000b", { append: "a\u0000b" }]) {
      const refused = await agent.run("hi", { systemPrompt: value as string }).catch((e: unknown) => e);
      expect(findError(refused, InvalidOptionError)?.field).toMatch(/^systemPrompt/);
    }
  });
});

describe("the agents run option (subagent definitions)", () => {
  const reviewer = { description: "Reviews release notes", prompt: "You are the reviewer." };

  it("reaches a driver that declares subagents, copied; a call's record replaces the agent's", async () => {
    const driver = scriptedDriver(async () => ({ text: "ok" }));
    Object.assign(driver, { descriptor: { ...driver.descriptor, capabilities: { ...driver.descriptor.capabilities, subagents: true } } });
    const tools = ["Read"];
    await using agent = new Agent(driver, { agents: { reviewer } });
    await agent.run("one");
    await agent.run("two", { agents: { writer: { description: "Writes", prompt: "You write.", tools, model: "haiku" } } });
    tools.push("Bash");
    expect(driver.requests.map((r) => r.agents)).toEqual([
      { reviewer },
      { writer: { description: "Writes", prompt: "You write.", tools: ["Read"], model: "haiku" } },
    ]);
  });

  it("a driver without subagents refuses a run with agents before it starts; an empty record is no request", async () => {
    const driver = scriptedDriver(async () => ({ text: "ok" }));
    await using agent = new Agent(driver);
    const refused = await agent.run("hi", { agents: { reviewer } }).catch((e: unknown) => e);
    expect(findError(refused, FeatureUnsupportedError)).toMatchObject({ driver: "scripted", feature: "agents" });
    expect(driver.requests).toHaveLength(0);
    await agent.run("hi", { agents: {} });
    expect(driver.requests[0]?.agents).toBeUndefined();
  });

  it("a definition without description or prompt, an empty name or an unknown key is refused naming the field", async () => {
    await using agent = new Agent(scriptedDriver(async () => ({ text: "ok" })));
    const cases: [unknown, RegExp][] = [
      [{ reviewer: { prompt: "p" } }, /^agents\.reviewer\.description$/],
      [{ reviewer: { description: "d" } }, /^agents\.reviewer\.prompt$/],
      [{ reviewer: { ...reviewer, color: "red" } }, /^agents\.reviewer/],
      [{ reviewer: { ...reviewer, tools: "Read" } }, /^agents\.reviewer\.tools$/],
      [{ "": reviewer }, /^agents/],
      [[reviewer], /^agents$/],
    ];
    for (const [agents, field] of cases) {
      const refused = await agent.run("hi", { agents: agents as Record<string, typeof reviewer> }).catch((e: unknown) => e);
      expect(findError(refused, InvalidOptionError)?.field).toMatch(field);
    }
  });
});

describe("the budget run option", () => {
  /** A driver that streams text, starts `tools` tool calls (one model response each) and answers. */
  function toolCaller(tools: number, capabilities: { turns?: boolean; costUsd?: boolean } = {}, costUsd?: number) {
    const driver = scriptedDriver(async (_request, sink, signal) => {
      sink.emit({ type: "text-delta", text: "working. " });
      for (let i = 1; i <= tools; i++) {
        sink.emit({ type: "notice", kind: "model.response", data: { messageId: `m${i}` } });
        sink.emit({ type: "tool-call", phase: "start", id: `call-${i}`, name: "Bash" });
        sink.emit({ type: "tool-call", phase: "start", id: `call-${i}`, name: "Bash" });
        await new Promise((resolve) => setImmediate(resolve));
        signal.throwIfAborted(); // as a real driver does once the SDK stops the run
      }
      return { text: "done", ...(costUsd !== undefined ? { costUsd } : {}) };
    });
    Object.assign(driver, {
      descriptor: { ...driver.descriptor, capabilities: { ...driver.descriptor.capabilities, budgets: capabilities } },
    });
    return driver;
  }

  it("maxToolCalls counts distinct tool calls on any driver and ends the run at the first one over, keeping the streamed text", async () => {
    await using agent = new Agent(toolCaller(3));
    const err = findError(await agent.run("go", { budget: { maxToolCalls: 2 } }).catch((e: unknown) => e), RunError);
    expect(err?.reason).toBe("budget_exceeded");
    expect(err?.details).toEqual({ budget: "maxToolCalls", limit: 2, used: 3 });
    expect(err?.result.text).toBe("working. ");
    expect((await agent.run("go", { budget: { maxToolCalls: 3 } })).text).toBe("done");
  });

  it("maxTurns counts model.response notices; maxCostUsd judges the reported cost; both refused where the driver reports neither", async () => {
    await using counted = new Agent(toolCaller(2, { turns: true, costUsd: true }, 0.5));
    const turns = findError(await counted.run("go", { budget: { maxTurns: 1 } }).catch((e: unknown) => e), RunError);
    expect(turns?.details).toEqual({ budget: "maxTurns", limit: 1, used: 2 });
    const cost = findError(await counted.run("go", { budget: { maxCostUsd: 0.25 } }).catch((e: unknown) => e), RunError);
    expect(cost?.details).toEqual({ budget: "maxCostUsd", limit: 0.25, used: 0.5 });
    expect(cost?.result.text).toBe("done");
    expect((await counted.run("go", { budget: { maxTurns: 2, maxCostUsd: 0.5 } })).costUsd).toBe(0.5);

    const silent = toolCaller(1);
    await using refused = new Agent(silent);
    for (const budget of [{ maxTurns: 1 }, { maxCostUsd: 1 }]) {
      const error = await refused.run("go", { budget }).catch((e: unknown) => e);
      expect(findError(error, FeatureUnsupportedError)?.feature).toBe(`budget.${Object.keys(budget)[0]}`);
    }
    expect(silent.requests).toHaveLength(0);
  });

  it("limits that are not positive are refused naming the field", async () => {
    await using agent = new Agent(toolCaller(0, { turns: true, costUsd: true }));
    for (const budget of [{ maxTurns: 0 }, { maxToolCalls: 1.5 }, { maxCostUsd: 0 }, { maxCostUsd: -1 }, { maxSteps: 3 }]) {
      const refused = await agent.run("go", { budget: budget as { maxTurns: number } }).catch((e: unknown) => e);
      expect(findError(refused, InvalidOptionError)?.field).toMatch(/^budget/);
    }
  });
});

describe("a prompt with images", () => {
  const PNG = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==", "base64");

  it("reaches a driver that takes images as bytes with their type, the text parts joined; refused by one that does not", async () => {
    const driver = scriptedDriver(async () => ({ text: "ok" }));
    Object.assign(driver, { descriptor: { ...driver.descriptor, capabilities: { ...driver.descriptor.capabilities, images: true } } });
    await using agent = new Agent(driver);
    await agent.run(["first", { type: "image", data: PNG }, { type: "text", text: "second" }]);
    expect(driver.requests[0]?.prompt).toBe("first\n\nsecond");
    expect(driver.requests[0]?.images).toEqual([{ mimeType: "image/png", data: new Uint8Array(PNG) }]);

    const plain = scriptedDriver(async () => ({ text: "ok" }));
    await using other = new Agent(plain);
    const refused = await other.run([{ type: "image", data: PNG }, "look"]).catch((e: unknown) => e);
    expect(findError(refused, FeatureUnsupportedError)?.feature).toBe("images");
    expect((await other.run(["only", "text"])).text).toBe("ok");
    expect(plain.requests.map((r) => r.prompt)).toEqual(["only\n\ntext"]);
  });

  it("a malformed prompt is refused naming the part", async () => {
    await using agent = new Agent(scriptedDriver(async () => ({ text: "ok" })));
    const cases: [unknown, string][] = [
      [[], "prompt"],
      [42, "prompt"],
      [["ok", { type: "audio" }], "prompt[1]"],
      [[{ type: "image" }], "prompt[0]"],
      [[{ type: "image", url: "https://example.com/x.png" }], "prompt[0].url"],
      [[{ type: "text", text: 7 }], "prompt[0].text"],
      [Array.from({ length: 21 }, () => ({ type: "image", data: PNG })), "prompt"],
    ];
    for (const [prompt, field] of cases) {
      const refused = await agent.run(prompt as string).catch((e: unknown) => e);
      expect(findError(refused, InvalidOptionError)?.field).toBe(field);
    }
  });

  it("an image path that is a FIFO or a directory is refused at once, not waited on", { timeout: 20_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), "adaptor-image-path-"));
    try {
      const fifo = join(dir, "shot.png");
      execFileSync("mkfifo", [fifo]);
      const driver = scriptedDriver(async () => ({ text: "ok" }));
      Object.assign(driver, { descriptor: { ...driver.descriptor, capabilities: { ...driver.descriptor.capabilities, images: true } } });
      await using agent = new Agent(driver);
      for (const path of [fifo, dir]) {
        const refused = await agent.run([{ type: "image", path }, "look"]).catch((e: unknown) => e);
        expect(findError(refused, InvalidOptionError)?.reason).toMatch(/is not a regular file/);
      }
      expect(driver.requests).toHaveLength(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
