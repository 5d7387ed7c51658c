import { afterEach, describe, expect, it } from "vitest";
import { whenPromptSays, type OpenAIServer } from "@adaptor/testkit";
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
