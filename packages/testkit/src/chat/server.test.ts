import { describe, expect, it } from "vitest";
import { startChatCompletionsServer, whenChatToolResult, whenChatUserSays } from "./server.js";

const post = (url: string, body: unknown): Promise<Response> =>
  fetch(`${url}/v1/chat/completions`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });

describe("chat-completions server", () => {
  it("streams a scripted tool call as SSE chunks, then answers its result by rule; the view names the tool", async () => {
    await using server = await startChatCompletionsServer({
      rules: [
        { name: "call", when: whenChatUserSays("LIST"), reply: { toolCall: { name: "bash", arguments: { command: "ls" } } } },
        { name: "after", when: whenChatToolResult("bash", "a.txt"), reply: { text: "saw a.txt" } },
      ],
    });
    const streamed = await (
      await post(server.url, { model: "m", stream: true, messages: [{ role: "user", content: "LIST files" }] })
    ).text();
    const chunks = streamed
      .split("\n\n")
      .filter((frame) => frame.startsWith("data: {"))
      .map((frame) => JSON.parse(frame.slice(6)) as { choices: { delta: Record<string, unknown>; finish_reason: string | null }[] });
    expect(streamed.trim().endsWith("data: [DONE]")).toBe(true);
    const call = chunks.flatMap(
      (c) => (c.choices[0]?.delta["tool_calls"] as { id: string; function: { name: string; arguments: string } }[]) ?? [],
    )[0];
    expect(call?.function).toEqual({ name: "bash", arguments: '{"command":"ls"}' });
    expect(chunks.at(-1)?.choices[0]?.finish_reason).toBe("tool_calls");
    const answer = (await (
      await post(server.url, {
        model: "m",
        messages: [
          { role: "user", content: "LIST files" },
          { role: "assistant", content: null, tool_calls: [{ id: call!.id, type: "function", function: call!.function }] },
          { role: "tool", tool_call_id: call!.id, content: "a.txt" },
        ],
      })
    ).json()) as { choices: { message: { content: string }; finish_reason: string }[] };
    expect(answer.choices[0]).toMatchObject({ message: { content: "saw a.txt" }, finish_reason: "stop" });
    expect(server.requests.map((r) => r.rule)).toEqual(["call", "after"]);
    expect(server.turns()[1]?.lastToolResult).toEqual({ toolCallId: call!.id, toolName: "bash", content: "a.txt" });
  });

  it("tool call ids: unique across servers by default; a reply's id or nextCallId pins them", async () => {
    const callId = async (url: string, prompt: string): Promise<unknown> => {
      const answer = (await (await post(url, { model: "m", messages: [{ role: "user", content: prompt }] })).json()) as {
        choices: { message: { tool_calls?: { id: string }[] } }[];
      };
      return answer.choices[0]?.message.tool_calls?.[0]?.id;
    };
    const rules = [
      { when: whenChatUserSays("fixed"), reply: { toolCall: { name: "bash", arguments: {}, id: "call_fixed" } } },
      { when: whenChatUserSays("LIST"), reply: { toolCall: { name: "bash", arguments: { command: "ls" } } } },
    ];
    await using one = await startChatCompletionsServer({ rules });
    await using other = await startChatCompletionsServer({ rules });
    const ids = [await callId(one.url, "LIST"), await callId(one.url, "LIST"), await callId(other.url, "LIST")];
    for (const id of ids) expect(id).toMatch(/^call_[0-9a-f]{32}$/);
    expect(new Set(ids).size).toBe(3);

    let n = 0;
    await using pinned = await startChatCompletionsServer({ rules, nextCallId: () => `call_${++n}` });
    expect([await callId(pinned.url, "LIST"), await callId(pinned.url, "LIST"), await callId(pinned.url, "fixed")]).toEqual([
      "call_1",
      "call_2",
      "call_fixed",
    ]);
  });

  it("answers an unmatched prompt with the fake reply and a scripted error with its status", async () => {
    await using server = await startChatCompletionsServer({
      rules: [{ when: whenChatUserSays("FAIL"), reply: { error: { status: 400, message: "bad request" } } }],
    });
    const fake = (await (await post(server.url, { model: "m", messages: [{ role: "user", content: "hi" }] })).json()) as {
      choices: { message: { content: string } }[];
    };
    expect(fake.choices[0]?.message.content).toBe("Fake reply. I saw 1 message(s).");
    const failed = await post(server.url, { model: "m", messages: [{ role: "user", content: "FAIL now" }] });
    expect(failed.status).toBe(400);
    expect(((await failed.json()) as { error: { message: string } }).error.message).toBe("bad request");
  });
});
