import { afterEach, describe, expect, it } from "vitest";
import { startGeminiServer, type GeminiServer } from "./server.js";
import { whenFunctionResponse, whenGeminiPromptSays } from "./script-rule.js";

let server: GeminiServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const user = (text: string) => ({ role: "user", parts: [{ text }] });

async function post(path: string, body: unknown): Promise<Response> {
  return fetch(`${server!.url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-goog-api-key": "k" },
    body: JSON.stringify(body),
  });
}

function frames(
  text: string,
): { candidates: { content: { parts: Record<string, unknown>[] }; finishReason?: string }[]; usageMetadata?: unknown }[] {
  return text
    .split("\r\n\r\n")
    .filter((chunk) => chunk.startsWith("data: "))
    .map((chunk) => JSON.parse(chunk.slice("data: ".length)) as never);
}

describe("scripted Gemini API server", () => {
  it("streams a text answer as SSE frames, the last with finishReason and usage, and logs the request", async () => {
    server = await startGeminiServer();
    const res = await post("/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse", {
      contents: [user("<session_context>ctx</session_context>"), user("hello THINK")],
    });
    expect(res.headers.get("content-type")).toBe("text/event-stream");
    const all = frames(await res.text());
    const parts = all.flatMap((f) => f.candidates[0]!.content.parts);
    expect(parts[0]).toMatchObject({ thought: true });
    expect(
      parts
        .filter((p) => !p["thought"])
        .map((p) => p["text"])
        .join(""),
    ).toBe('Fake reply. I saw 2 content(s), 1 user prompt(s); first user text: "hello THINK"');
    expect(all.at(-1)).toMatchObject({
      candidates: [{ finishReason: "STOP" }],
      usageMetadata: { promptTokenCount: 100, candidatesTokenCount: 10 },
    });
    expect(server.requests[0]).toMatchObject({
      path: "/v1beta/models/gemini-2.5-flash:streamGenerateContent",
      query: "?alt=sse",
      rule: "directive",
      headers: { "x-goog-api-key": "<set>" },
    });
    expect(server.turns()).toHaveLength(1);
  });

  it("answers the model router's JSON call and other helper calls without counting them as turns", async () => {
    server = await startGeminiServer();
    const router = await post("/v1beta/models/gemini-3.5-flash-lite:generateContent", {
      contents: [user("route this")],
      generationConfig: { responseJsonSchema: { type: "object", properties: { reasoning: {}, model_choice: {} } } },
    });
    const body = (await router.json()) as { candidates: { content: { parts: { text: string }[] } }[] };
    expect(JSON.parse(body.candidates[0]!.content.parts[0]!.text)).toEqual({ reasoning: "scripted", model_choice: "flash" });
    expect(server.turns()).toEqual([]);
  });

  it("rules match prompts and function responses; errors use the Google error body", async () => {
    server = await startGeminiServer({
      rules: [
        { name: "call", when: whenGeminiPromptSays("go"), reply: { functionCall: { name: "read_file", args: { path: "a" } } } },
        { name: "after", when: whenFunctionResponse("read_file", "contents"), reply: { text: "read it" } },
        { name: "fail", when: whenGeminiPromptSays("fail"), reply: { error: { status: 400, message: "bad" } } },
      ],
    });
    const call = frames(await (await post("/v1beta/models/m:streamGenerateContent", { contents: [user("go")] })).text());
    expect(call[0]!.candidates[0]!.content.parts[0]).toMatchObject({ functionCall: { name: "read_file", args: { path: "a" } } });
    const followUp = {
      contents: [
        user("go"),
        { role: "model", parts: [{ functionCall: { name: "read_file" } }] },
        { role: "user", parts: [{ functionResponse: { name: "read_file", response: { output: "the contents" } } }] },
      ],
    };
    expect(
      frames(await (await post("/v1beta/models/m:streamGenerateContent", followUp)).text())[0]!.candidates[0]!.content.parts[0],
    ).toEqual({ text: "read it" });
    const failed = await post("/v1beta/models/m:streamGenerateContent", { contents: [user("fail")] });
    expect(failed.status).toBe(400);
    expect(await failed.json()).toEqual({ error: { code: 400, message: "bad", status: "INVALID_ARGUMENT" } });
    expect(server.requests.map((r) => r.rule)).toEqual(["call", "after", "fail"]);
    expect(server.requests[1]!.view.lastFunctionResponse).toMatchObject({ name: "read_file", output: "the contents", isError: false });
  });
});
