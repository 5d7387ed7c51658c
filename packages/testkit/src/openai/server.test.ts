import { afterEach, describe, expect, test } from "vitest";
import { startOpenAIServer, type OpenAIServer, type OpenAIServerOptions } from "./server.js";
import { whenPromptSays, whenToolOutput } from "./script-rule.js";
import { addFilePatch } from "./directives.js";

let server: OpenAIServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function start(options?: OpenAIServerOptions): Promise<OpenAIServer> {
  server = await startOpenAIServer(options);
  return server;
}

const CONTEXT = {
  type: "message",
  role: "user",
  content: [{ type: "input_text", text: "<environment_context>\n  <cwd>/w</cwd>\n</environment_context>" }],
};
const developer = { type: "message", role: "developer", content: [{ type: "input_text", text: "You are Codex." }] };
const user = (text: string): unknown => ({ type: "message", role: "user", content: [{ type: "input_text", text }] });

function body(input: unknown[], extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    model: "gpt-5.5",
    stream: true,
    input,
    tools: [{ type: "function", name: "exec_command" }, { type: "custom", name: "apply_patch" }, { type: "web_search" }],
    ...extra,
  };
}

async function post(url: string, payload: unknown, path = "/v1/responses") {
  return fetch(url + path, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: "Bearer secret" },
    body: JSON.stringify(payload),
  });
}

/** Parses an SSE body into [event, data] pairs, checking each frame's event names its data.type. */
async function events(response: Response): Promise<{ event: string; data: Record<string, unknown> }[]> {
  const text = await response.text();
  return text
    .split("\n\n")
    .filter((frame) => frame !== "")
    .map((frame) => {
      const [eventLine, dataLine] = frame.split("\n");
      const event = eventLine?.replace(/^event: /, "") ?? "";
      const data = JSON.parse(dataLine?.replace(/^data: /, "") ?? "") as Record<string, unknown>;
      expect(data.type).toBe(event);
      return { event, data };
    });
}

describe("startOpenAIServer", () => {
  test("text reply: response.created … response.completed with deltas, usage and increasing sequence numbers", async () => {
    const { url, responses } = await start();
    const response = await post(url, body([developer, CONTEXT, user("hello")]));
    expect(response.headers.get("content-type")).toContain("text/event-stream");
    const frames = await events(response);
    expect(frames.map((f) => f.event)).toEqual([
      "response.created",
      "response.in_progress",
      "response.output_item.added",
      "response.content_part.added",
      "response.output_text.delta",
      "response.output_text.delta",
      "response.output_text.done",
      "response.content_part.done",
      "response.output_item.done",
      "response.completed",
    ]);
    frames.forEach((f, i) => expect(f.data.sequence_number).toBe(i));
    const text = 'Fake reply. I saw 3 input item(s), 1 user message(s); first user text: "hello"';
    expect(
      frames
        .filter((f) => f.event === "response.output_text.delta")
        .map((f) => f.data.delta)
        .join(""),
    ).toBe(text);
    expect(frames.at(-1)?.data.response).toMatchObject({
      status: "completed",
      model: "gpt-5.5",
      output: [{ type: "message", role: "assistant", content: [{ type: "output_text", text }] }],
      usage: { input_tokens: 100, output_tokens: 10, total_tokens: 110 },
    });
    expect(responses()[0]?.view).toMatchObject({
      inputCount: 3,
      messageCount: 3,
      userMessageCount: 1,
      lastUserText: "hello",
      toolNames: ["exec_command", "apply_patch", "web_search"],
    });
    expect(responses()[0]?.headers.authorization).toBe("<set>");
    expect(JSON.stringify(responses())).not.toContain("secret");
  });

  test("SHELL_CMD → a function_call of exec_command with {cmd}; its output is seen with the tool name", async () => {
    const { url, responses } = await start();
    const frames = await events(await post(url, body([CONTEXT, user("SHELL_CMD echo hi > f.txt")])));
    const done = frames.find((f) => f.event === "response.output_item.done")?.data.item as Record<string, unknown>;
    expect(done).toMatchObject({ type: "function_call", name: "exec_command", call_id: expect.stringMatching(/^call_[0-9a-f]{32}$/) });
    expect(JSON.parse(done.arguments as string)).toEqual({ cmd: "echo hi > f.txt" });
    expect(frames.some((f) => f.event === "response.function_call_arguments.delta")).toBe(true);

    const followUp = [
      CONTEXT,
      user("SHELL_CMD echo hi > f.txt"),
      done,
      { type: "function_call_output", call_id: done.call_id, output: "Process exited with code 0\nOutput:\nhi" },
    ];
    const second = await events(await post(url, body(followUp)));
    expect(second.at(-1)?.data.response).toMatchObject({
      output: [{ content: [{ text: "Done: Process exited with code 0 Output: hi" }] }],
    });
    expect(responses()[1]?.view).toMatchObject({
      lastUserText: "",
      lastToolOutput: { toolName: "exec_command", kind: "function", output: "Process exited with code 0\nOutput:\nhi" },
    });
  });

  test("call ids: unique across servers by default (function and custom calls); a reply's callId or nextCallId pins them", async () => {
    const callId = async (url: string, prompt: string): Promise<unknown> => {
      const response = (await (await post(url, body([CONTEXT, user(prompt)], { stream: false }))).json()) as {
        output: { call_id?: string }[];
      };
      return response.output.find((item) => item.call_id !== undefined)?.call_id;
    };
    const { url } = await start();
    await using other = await startOpenAIServer();
    const ids = [await callId(url, "SHELL_CMD echo a"), await callId(url, "PATCH_FILE a.txt"), await callId(other.url, "SHELL_CMD echo a")];
    for (const id of ids) expect(id).toMatch(/^call_[0-9a-f]{32}$/);
    expect(new Set(ids).size).toBe(3);

    let n = 0;
    await using pinned = await startOpenAIServer({
      nextCallId: () => `call_${++n}`,
      rules: [{ when: whenPromptSays("fixed"), reply: { functionCall: { name: "exec_command", arguments: {}, callId: "call_fixed" } } }],
    });
    expect([await callId(pinned.url, "SHELL_CMD echo a"), await callId(pinned.url, "PATCH_FILE a.txt")]).toEqual(["call_1", "call_2"]);
    expect(await callId(pinned.url, "fixed")).toBe("call_fixed");
  });

  test("PATCH_FILE → a custom_tool_call of apply_patch with an Add File patch", async () => {
    const { url } = await start();
    const frames = await events(await post(url, body([user("PATCH_FILE notes/a.txt")])));
    expect(frames.map((f) => f.event)).toContain("response.custom_tool_call_input.delta");
    const done = frames.find((f) => f.event === "response.output_item.done")?.data.item;
    expect(done).toMatchObject({ type: "custom_tool_call", name: "apply_patch", input: addFilePatch("notes/a.txt") });
    expect(addFilePatch("a.txt", "x\ny\n")).toBe("*** Begin Patch\n*** Add File: a.txt\n+x\n+y\n*** End Patch\n");
  });

  test("rules match on the request, never on a queue; reasoning summaries stream; structured schema is visible", async () => {
    const { url, responses } = await start({
      rules: [
        { name: "after-shell", when: whenToolOutput("exec_command", /ok/), reply: { text: "tool said ok" } },
        { name: "think", when: whenPromptSays(/^think/), reply: { text: "thought", reasoning: "pondering" } },
      ],
    });
    const schema = { type: "object", properties: {}, required: [], additionalProperties: false };
    const frames = await events(
      await post(url, body([user("think hard")], { text: { format: { type: "json_schema", strict: true, schema, name: "s" } } })),
    );
    expect(
      frames
        .filter((f) => f.event === "response.reasoning_summary_text.delta")
        .map((f) => f.data.delta)
        .join(""),
    ).toBe("pondering");
    expect(responses()[0]).toMatchObject({ rule: "think", view: { outputSchema: schema } });
    await events(
      await post(
        url,
        body([
          user("x"),
          { type: "function_call", call_id: "c", name: "exec_command", arguments: "{}" },
          { type: "function_call_output", call_id: "c", output: "all ok" },
        ]),
      ),
    );
    expect(responses()[1]?.rule).toBe("after-shell");
  });

  test("HTTP_ERROR → that status with an OpenAI error body; non-streaming requests get one JSON response", async () => {
    const { url } = await start();
    const failed = await post(url, body([user("HTTP_ERROR 400")]));
    expect(failed.status).toBe(400);
    expect(await failed.json()).toEqual({
      error: { message: "scripted error 400", type: "invalid_request_error", param: null, code: null },
    });
    const plain = await post(url, body([user("hi")], { stream: false }));
    expect(await plain.json()).toMatchObject({ object: "response", status: "completed", output: [{ type: "message" }] });
    const missing = await fetch(`${url}/v1/models`);
    expect(missing.status).toBe(404);
  });

  test("a throwing rule answers HTTP 500 naming the rule", async () => {
    const { url } = await start({
      rules: [
        {
          name: "broken",
          when: () => {
            throw new Error("boom");
          },
          reply: { text: "x" },
        },
      ],
    });
    const response = await post(url, body([user("hi")]));
    expect(response.status).toBe(500);
    expect(JSON.stringify(await response.json())).toContain("scripted rule broken threw: boom");
  });

  test("SLOW_MS holds the first byte; close() cancels pending delays and is idempotent", async () => {
    const { url, close } = await start({ rules: [{ when: whenPromptSays("quick"), reply: { text: "q", delayMs: 150 } }] });
    const began = Date.now();
    await (await post(url, body([user("quick")]))).text();
    expect(Date.now() - began).toBeGreaterThanOrEqual(140);
    const hanging = post(url, body([user("SLOW_MS 60000 forever")])).then(
      () => "answered",
      () => "failed",
    );
    await new Promise((resolve) => setTimeout(resolve, 50));
    const closing = Date.now();
    await Promise.all([close(), close()]);
    expect(Date.now() - closing).toBeLessThan(20_000); // close() cancels the 60 s delay: no wait for it
    expect(await hanging).toBe("failed");
  });
});
