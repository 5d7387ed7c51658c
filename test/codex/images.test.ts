import { afterEach, describe, expect, it } from "vitest";
import { whenPromptSays, type OpenAIServer } from "@adaptor/testkit";
import { MemoryThreadStore } from "@adaptor/threadstore";
import { Agent } from "adaptor";
import { codex } from "@adaptor/codex";
import { codexHarness, type CodexHarness } from "./support.js";

// Images in a prompt on the real codex binary, both transports: what the scripted server receives.

/** A 1×1 PNG. */
const PNG = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==", "base64");

let h: CodexHarness | undefined;
let agent: Agent | undefined;
afterEach(async () => {
  await agent?.close();
  await h?.close();
  h = agent = undefined;
});

/** The content parts of the user message that carried `marker`. */
function userParts(server: OpenAIServer, marker: string): { type: string; text?: string; image_url?: string }[] {
  const request = server.requests.find((r) => r.view.lastUserText.includes(marker));
  const body = request?.body as { input?: { role?: string; content?: { type: string; text?: string; image_url?: string }[] }[] };
  const message = (body?.input ?? [])
    .filter((item) => item.role === "user")
    .find((item) => item.content?.some((part) => part.text?.includes(marker)));
  return message?.content ?? [];
}

describe.each(["app-server", "exec"] as const)("images in a prompt over %s (real binary)", (transport) => {
  it("an image reaches the model as an input_image before the text", { timeout: 180_000 }, async () => {
    h = await codexHarness({ rules: [{ when: whenPromptSays("describe the image"), reply: { text: "a pixel" } }] });
    agent = new Agent(codex({ cwd: h.env.workDir, env: h.env.env, inheritEnv: false, killGraceMs: 1000, transport }));
    expect((await agent.run([{ type: "image", data: PNG }, "describe the image"])).text).toBe("a pixel");
    const parts = userParts(h.server, "describe the image");
    const image = parts.findIndex((part) => part.type === "input_image");
    const text = parts.findIndex((part) => part.text?.includes("describe the image") === true);
    expect(image).toBeGreaterThanOrEqual(0);
    expect(image).toBeLessThan(text);
    expect(parts[image]?.image_url).toBe(`data:image/png;base64,${PNG.toString("base64")}`);
  });
});

// A thread's later turn with an image: the image goes with the resumed session's prompt (on exec,
// `codex exec resume`'s own --image), and the conversation continues.
describe.each(["app-server", "exec"] as const)("an image on a thread's second turn over %s (real binary)", (transport) => {
  it("reaches the model with the thread's history: same session, both user messages", { timeout: 180_000 }, async () => {
    h = await codexHarness({ rules: [{ when: whenPromptSays("describe the image"), reply: { text: "a pixel" } }] });
    agent = new Agent(codex({ cwd: h.env.workDir, env: h.env.env, inheritEnv: false, killGraceMs: 1000, transport }), {
      threadStore: new MemoryThreadStore(),
    });
    const thread = agent.thread("pictures");
    const first = await thread.run("remember the number 7");
    const second = await thread.run([{ type: "image", data: PNG }, "describe the image"]);
    expect(second.text).toBe("a pixel");
    expect(second.sessionId).toBe(first.sessionId);
    const request = h.server.requests.find((r) => r.view.lastUserText.includes("describe the image"));
    const users = ((request?.body as { input?: { role?: string }[] })?.input ?? []).filter((item) => item.role === "user");
    expect(JSON.stringify(users)).toContain("remember the number 7");
    expect(userParts(h.server, "describe the image").some((part) => part.type === "input_image")).toBe(true);
  });
});
