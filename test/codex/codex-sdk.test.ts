import { afterEach, describe, expect, it } from "vitest";
import { MemoryThreadStore } from "@adaptor/threadstore";
import { Agent, ErrPolicyViolation, RunError, isError } from "adaptor";
import { codexHarness, type CodexHarness } from "./support.js";

// The Codex driver under the SDK (`new Agent(codex(...))`): threads and structured output, end to end
// on the real binary.

let h: CodexHarness | undefined;
let agent: Agent | undefined;
afterEach(async () => {
  await agent?.close();
  await h?.close();
  h = agent = undefined;
});

const answerJSON = { type: "object", properties: { answer: { type: "string" }, note: { type: "string" } }, required: ["answer"] };

describe("codex driver under the SDK on the real binary", () => {
  it("a thread resumes codex's thread in a new process each turn: the model sees the history", async () => {
    h = await codexHarness();
    // spawn: true: every turn a fresh process (thread/resume); reuse of a live one is codex-reuse.test.ts.
    agent = new Agent(h.driver, { threadStore: new MemoryThreadStore(), spawn: true });
    const thread = agent.thread("chat");
    const first = await thread.run("first thread turn");
    const second = await thread.run("second thread turn");
    expect(first.text).toContain("1 user message(s)");
    expect(second.text).toContain('2 user message(s); first user text: "first thread turn"');
    expect(h.server.responses().at(-1)?.view.userTexts).toEqual(["first thread turn", "second thread turn"]);
  });

  it("structured output: a non-strict schema is honoured natively and validated by the SDK", async () => {
    h = await codexHarness();
    agent = new Agent(h.driver);
    const result = await agent.run('JSON_REPLY {"answer":"forty-two","note":null}', { schemaJSON: answerJSON });
    expect(result.structuredOutput).toMatchObject({ source: "native", valid: true, value: { answer: "forty-two" } });
  });

  for (const transport of ["app-server", "exec"] as const) {
    it(`structured output on ${transport}: schemaName and schemaDescription reach the model as the text.format schema's title and description`, async () => {
      h = await codexHarness({ config: { transport } });
      agent = new Agent(h.driver);
      const result = await agent.run('JSON_REPLY {"answer":"forty-two","note":null}', {
        schemaJSON: answerJSON,
        schemaName: "final_answer",
        schemaDescription: "The answer and an optional note",
      });
      expect(result.structuredOutput).toMatchObject({ source: "native", valid: true, schemaName: "final_answer" });
      const body = h.server.responses()[0]?.body as { text?: { format?: { name?: string; schema?: unknown } } };
      // codex names the format itself; the schema it sends carries the name and description.
      expect(body.text?.format?.name).toBe("codex_output_schema");
      expect(body.text?.format?.schema).toMatchObject({
        type: "object",
        title: "final_answer",
        description: "The answer and an optional note",
      });
    });
  }

  it("structured output the caller's schema rejects: RunError policy_violation from the SDK's validation", async () => {
    h = await codexHarness();
    agent = new Agent(h.driver);
    const err = await agent.run('JSON_REPLY {"answer":42}', { schemaJSON: answerJSON }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RunError);
    expect(isError(err, ErrPolicyViolation)).toBe(true);
    expect((err as RunError).result.structuredOutput).toMatchObject({ valid: false, value: { answer: 42 } });
  });
});
