import { existsSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
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

// 1×1 PNGs of two colours.
const RED = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==", "base64");
const BLUE = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPj/HwADBwIAMCbHYQAAAABJRU5ErkJggg==", "base64");

let dir: string;
let redPath: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "adaptor-codex-images-"));
  redPath = join(dir, "red.png");
  await writeFile(redPath, RED);
});
afterAll(() => rm(dir, { recursive: true, force: true }));

/** The user message content of the last model request: texts as they are, images as IMG. */
function lastUserContent(requests: readonly { body: unknown }[]): string[] {
  const body = requests.at(-1)!.body as { input: { role?: string; content?: { type: string; text?: string }[] }[] };
  const user = body.input.filter((item) => item.role === "user").at(-1)!;
  return user.content!.map((part) => (part.type === "input_image" ? "IMG" : part.text!));
}

// Two images among text: codex labels each by number, as its own exec and the peer SDK do, so the
// text can say which one it means ("is the second one blue?").
describe.each(["app-server", "exec"] as const)("two prompt images over %s (real binary)", (transport) => {
  it(
    "reach the model labelled by number, with the user's path for a file and a run copy for bytes; the title is the text",
    { timeout: 60_000 },
    async () => {
      const h = await codexHarness({ config: { transport } });
      try {
        await using agent = new Agent(h.driver);
        await agent.run([
          "Is the first one red?",
          { type: "image", path: redPath },
          "and is this second one blue?",
          { type: "image", data: BLUE },
        ]);
        const content = lastUserContent(h.server.requests);
        expect(content).toEqual([
          `<image name=[Image #1] path="${redPath}">`,
          "IMG",
          "</image>",
          expect.stringMatching(/^<image name=\[Image #2\] path=".*\.png">$/),
          "IMG",
          "</image>",
          "Is the first one red?\n\nand is this second one blue?",
        ]);
        // The copy of the bytes lived for the run only.
        const copy = /path="(.*)"/.exec(content[3]!)![1]!;
        expect(copy.startsWith(dir)).toBe(false);
        expect(existsSync(copy)).toBe(false);
        const page = await agent.listSessions({ cwd: h.env.workDir });
        expect(page.sessions.map((s) => s.title)).toEqual(["Is the first one red?\n\nand is this second one blue?"]);
      } finally {
        await h.close();
      }
    },
  );
});

describe("an image file whose path holds a comma over exec (real binary)", () => {
  it("reaches the model as a copy of the run: codex exec splits an --image value at commas", { timeout: 60_000 }, async () => {
    const h = await codexHarness({ config: { transport: "exec" } });
    try {
      const commaPath = join(dir, "red, again.png");
      await writeFile(commaPath, RED);
      await using agent = new Agent(h.driver);
      await agent.run(["Is it red?", { type: "image", path: commaPath }]);
      const content = lastUserContent(h.server.requests);
      expect(content).toEqual([expect.stringMatching(/^<image name=\[Image #1\] path="[^,]*\.png">$/), "IMG", "</image>", "Is it red?"]);
    } finally {
      await h.close();
    }
  });
});
