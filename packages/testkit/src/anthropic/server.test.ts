import { afterEach, describe, expect, test } from "vitest";
import { startAnthropicServer, type AnthropicServer, type AnthropicServerOptions } from "./server.js";
import { whenToolResult, whenUserSays } from "./script-rule.js";

let server: AnthropicServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function start(options?: AnthropicServerOptions): Promise<AnthropicServer> {
  server = await startAnthropicServer(options);
  return server;
}

const REMINDER = "<system-reminder>\nnoise\n</system-reminder>";

function body(messages: unknown[], extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { model: "claude-test", max_tokens: 100, messages, tools: [{ name: "Write" }, { name: "Bash" }], ...extra };
}

function user(text: string): unknown {
  return {
    role: "user",
    content: [
      { type: "text", text: REMINDER },
      { type: "text", text },
    ],
  };
}

async function post(url: string, payload: unknown, path = "/v1/messages?beta=true", headers: Record<string, string> = {}) {
  return fetch(url + path, {
    method: "POST",
    headers: { "content-type": "application/json", "x-api-key": "secret-key", ...headers },
    body: JSON.stringify(payload),
  });
}

/** Parses an SSE body into [event, data] pairs, checking that each frame's event matches data.type. */
function parseSse(text: string): { event: string; data: Record<string, unknown> }[] {
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

describe("startAnthropicServer", () => {
  test("non-streaming text reply: message JSON with ids, end_turn and default usage", async () => {
    const { url, requests } = await start({
      rules: [
        { name: "never", when: () => false, reply: { text: "no" } },
        { when: whenUserSays("hi"), reply: { text: "Hello there, friend." } },
      ],
    });
    const response = await post(url, body([user("hi")]));
    expect(requests[0]?.rule).toBe("rules[1]");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/json");
    expect(await response.json()).toEqual({
      id: "msg_fake_1",
      type: "message",
      role: "assistant",
      model: "claude-test",
      content: [{ type: "text", text: "Hello there, friend." }],
      stop_reason: "end_turn",
      stop_sequence: null,
      usage: { input_tokens: 101, output_tokens: 5, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
    });
  });

  test("streaming tool use: SSE frames in API order, input_json_delta reassembles the input", async () => {
    const input = { file_path: "/tmp/x.txt", content: "some content that is long enough to split" };
    const { url } = await start({ rules: [{ when: () => true, reply: { text: "Writing.", toolUse: { name: "Write", input } } }] });
    const response = await post(url, body([user("go")], { stream: true }));
    expect(response.headers.get("content-type")).toMatch(/^text\/event-stream/);
    const frames = parseSse(await response.text());
    expect(frames.map((f) => f.event)).toEqual([
      "message_start",
      "ping",
      "content_block_start",
      "content_block_delta",
      "content_block_delta",
      "content_block_delta",
      "content_block_stop",
      "content_block_start",
      "content_block_delta",
      "content_block_delta",
      "content_block_delta",
      "content_block_stop",
      "message_delta",
      "message_stop",
    ]);
    const starts = frames.filter((f) => f.event === "content_block_start").map((f) => f.data.content_block);
    expect(starts).toEqual([
      { type: "text", text: "" },
      { type: "tool_use", id: expect.stringMatching(/^toolu_[0-9a-f]{32}$/), name: "Write", input: {} },
    ]);
    const deltas = frames.filter((f) => f.event === "content_block_delta").map((f) => f.data.delta as Record<string, string>);
    expect(
      deltas
        .filter((d) => d.type === "text_delta")
        .map((d) => d.text)
        .join(""),
    ).toBe("Writing.");
    const json = deltas
      .filter((d) => d.type === "input_json_delta")
      .map((d) => d.partial_json)
      .join("");
    expect(JSON.parse(json)).toEqual(input);
    expect(frames.at(-2)?.data).toMatchObject({
      delta: { stop_reason: "tool_use" },
      usage: { output_tokens: expect.any(Number) },
    });
  });

  test("thinking reply streams thinking_delta then signature_delta before the text block", async () => {
    const { url } = await start({ rules: [{ when: () => true, reply: { thinking: "Hmm, let me see.", text: "Answer." } }] });
    const frames = parseSse(await (await post(url, body([user("q")], { stream: true }))).text());
    const deltas = frames
      .filter((f) => f.event === "content_block_delta")
      .map((f) => f.data as { index: number; delta: Record<string, string> });
    const thinking = deltas.filter((d) => d.index === 0);
    expect(thinking.map((d) => d.delta.type)).toEqual(["thinking_delta", "thinking_delta", "thinking_delta", "signature_delta"]);
    expect(thinking.map((d) => d.delta.thinking ?? "").join("")).toBe("Hmm, let me see.");
    expect(
      deltas
        .filter((d) => d.index === 1)
        .map((d) => d.delta.text)
        .join(""),
    ).toBe("Answer.");
  });

  test("rules are checked in order against the request, not a queue; function replies see the view", async () => {
    const { url, requests } = await start({
      rules: [
        {
          name: "after-write",
          when: whenToolResult("Write", /created/),
          reply: (view) => ({ text: `ok ${view.lastToolResult?.toolUseId}` }),
        },
        { name: "first", when: whenUserSays(/^alpha/), reply: { text: "one" } },
        { name: "second", when: whenUserSays("alpha"), reply: { text: "two" } },
      ],
    });
    const texts = async (messages: unknown[]): Promise<string> => {
      const message = (await (await post(url, body(messages))).json()) as { content: { text: string }[] };
      return message.content[0]?.text ?? "";
    };
    expect(await texts([user("alpha beta")])).toBe("one");
    expect(await texts([user("say alpha")])).toBe("two");
    expect(await texts([user("alpha beta")])).toBe("one");
    const withResult = [
      user("write it"),
      { role: "assistant", content: [{ type: "tool_use", id: "toolu_9", name: "Write", input: {} }] },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_9", content: `File created\n\n${REMINDER}` }] },
    ];
    expect(await texts(withResult)).toBe("ok toolu_9");
    expect(requests.map((r) => r.rule)).toEqual(["first", "second", "first", "after-write"]);
    expect(requests[3]?.view).toMatchObject({
      lastUserText: "",
      firstUserText: "write it",
      messageCount: 3,
      lastToolResult: { toolUseId: "toolu_9", toolName: "Write", content: "File created", isError: false },
      toolNames: ["Write", "Bash"],
      model: "claude-test",
      stream: false,
    });
  });

  test("a rule that throws answers 500 naming the rule", async () => {
    const { url } = await start({
      rules: [
        {
          name: "broken",
          when: () => true,
          reply: () => {
            throw new Error("boom");
          },
        },
      ],
    });
    const response = await post(url, body([user("x")]));
    expect(response.status).toBe(500);
    expect(await response.json()).toEqual({ type: "error", error: { type: "api_error", message: "scripted rule broken threw: boom" } });
  });

  test("tool_use ids: unique across servers by default; a reply's id or nextToolUseId pins them", async () => {
    const writeId = async (url: string): Promise<unknown> => {
      const message = (await (await post(url, body([user("WRITE_FILE /tmp/a.txt")]))).json()) as { content: { id?: string }[] };
      return message.content[0]?.id;
    };
    const { url } = await start();
    await using other = await startAnthropicServer();
    const ids = [await writeId(url), await writeId(url), await writeId(other.url)];
    for (const id of ids) expect(id).toMatch(/^toolu_[0-9a-f]{32}$/);
    expect(new Set(ids).size).toBe(3);

    let n = 0;
    await using pinned = await startAnthropicServer({
      nextToolUseId: () => `toolu_${++n}`,
      rules: [{ when: whenUserSays("fixed"), reply: { toolUse: { name: "Write", input: {}, id: "toolu_fixed" } } }],
    });
    expect([await writeId(pinned.url), await writeId(pinned.url)]).toEqual(["toolu_1", "toolu_2"]);
    const fixed = (await (await post(pinned.url, body([user("fixed")]))).json()) as { content: { id?: string }[] };
    expect(fixed.content[0]?.id).toBe("toolu_fixed");
  });

  test("directives: WRITE_FILE, SHELL_CMD, tool result, HTTP_ERROR and the default reply", async () => {
    let n = 0;
    const { url } = await start({ nextToolUseId: () => `toolu_${++n}` });
    const first = async (text: string) => {
      const message = (await (await post(url, body([user(text)]))).json()) as { content: Record<string, unknown>[] };
      return message.content[0];
    };
    expect(await first("WRITE_FILE /tmp/a.txt please")).toEqual({
      type: "tool_use",
      id: "toolu_1",
      name: "Write",
      input: { file_path: "/tmp/a.txt", content: "hello from fake model\n" },
    });
    expect(await first("SHELL_CMD echo hi there\nthanks")).toMatchObject({
      type: "tool_use",
      id: "toolu_2",
      name: "Bash",
      input: { command: "echo hi there", description: expect.any(String) },
    });
    expect(await first("hello")).toEqual({
      type: "text",
      text: 'Fake reply. I saw 1 message(s); first user text: "hello"',
    });

    const result = await post(
      url,
      body([
        user("x"),
        { role: "assistant", content: [{ type: "tool_use", id: "t", name: "Bash", input: {} }] },
        { role: "user", content: [{ type: "tool_result", tool_use_id: "t", content: [{ type: "text", text: "x".repeat(300) }] }] },
      ]),
    );
    expect(((await result.json()) as { content: { text: string }[] }).content[0]?.text).toBe(`Done: ${"x".repeat(200)}`);

    const error = await post(url, body([user("HTTP_ERROR 529")], { stream: true }));
    expect(error.status).toBe(529);
    expect(await error.json()).toMatchObject({
      type: "error",
      error: { type: "overloaded_error", message: expect.stringContaining("529") },
    });
    const badRequest = await post(url, body([user("HTTP_ERROR 400")]));
    expect(badRequest.status).toBe(400);
    expect(await badRequest.json()).toMatchObject({ type: "error", error: { type: "invalid_request_error" } });
  });

  test("logs requests with secrets redacted; count_tokens answers, other paths 404", async () => {
    const { url, requests } = await start();
    await post(url, body([user("hi")]), "/v1/messages?beta=true", { authorization: "Bearer secret" });
    const counted = await post(url, body([user("hi")]), "/v1/messages/count_tokens?beta=true");
    expect(counted.status).toBe(200);
    expect(await counted.json()).toEqual({ input_tokens: expect.any(Number) });
    const missing = await fetch(`${url}/v1/models`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ type: "error", error: { type: "not_found_error" } });

    expect(requests.map((r) => [r.method, r.path, r.query])).toEqual([
      ["POST", "/v1/messages", "?beta=true"],
      ["POST", "/v1/messages/count_tokens", "?beta=true"],
      ["GET", "/v1/models", ""],
    ]);
    expect(requests[0]?.headers["x-api-key"]).toBe("<set>");
    expect(requests[0]?.headers.authorization).toBe("<set>");
    expect(JSON.stringify(requests)).not.toContain("secret");
    expect(requests[0]?.body).toMatchObject({ model: "claude-test" });
    expect(requests[0]?.reply).toMatchObject({ text: expect.stringMatching(/^Fake reply/) });
    expect(requests[1]?.reply).toBeUndefined();
    expect(typeof requests[0]?.time).toBe("number");
  });

  test("delayMs holds the first byte; close() cancels pending delays and is idempotent", async () => {
    const { url, close } = await start({
      rules: [
        { when: whenUserSays("quick"), reply: { text: "q", delayMs: 150 } },
        { when: whenUserSays("forever"), reply: { text: "f", delayMs: 60_000 } },
      ],
    });
    const began = Date.now();
    expect((await post(url, body([user("quick")]))).status).toBe(200);
    expect(Date.now() - began).toBeGreaterThanOrEqual(140);

    const hanging = post(url, body([user("forever")])).then(
      () => "answered",
      () => "failed",
    );
    await new Promise((resolve) => setTimeout(resolve, 50));
    const closing = Date.now();
    await Promise.all([close(), close()]);
    await close();
    expect(Date.now() - closing).toBeLessThan(20_000); // close() cancels the 60 s delay: no wait for it
    expect(await hanging).toBe("failed");
  });
});
