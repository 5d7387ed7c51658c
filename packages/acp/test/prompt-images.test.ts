import { fileURLToPath } from "node:url";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { claudeTestEnv, startAnthropicServer, whenUserSays } from "@adaptor/testkit";
import { Agent, FeatureUnsupportedError, findError, type AgentEvent } from "adaptor";
import { acp, claudeAgentAcp } from "../src/index.js";

// Prompt images on ACP: image blocks in `session/prompt` for an agent whose `initialize` answer
// declares `promptCapabilities.image` (claude-agent-acp 0.23.1 does; so do every other pinned
// agent), a typed refusal before the prompt for one that does not (the scripted fake agent).

/** A 1×1 PNG. */
const PNG = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==", "base64");
const FAKE_AGENT = fileURLToPath(new URL("./fixtures/scripted-acp-agent.mjs", import.meta.url));

describe("prompt images over ACP", () => {
  it("claude-agent-acp (declares promptCapabilities.image): the image reaches the model as an image block before the text", async () => {
    await using server = await startAnthropicServer({
      rules: [{ when: whenUserSays("describe the picture"), reply: { text: "A single pixel." } }],
    });
    const env = await claudeTestEnv({ server });
    try {
      await using agent = new Agent(claudeAgentAcp({ cwd: env.workDir, env: env.env, inheritEnv: false }));
      const result = await agent.run([{ type: "image", data: PNG, mimeType: "image/png" }, "describe the picture"]);
      expect(result.text).toBe("A single pixel.");
      const asked = server.requests.find((r) => r.view.lastUserText.includes("describe the picture"));
      const body = asked?.body as {
        messages: { role: string; content: { type: string; source?: { media_type?: string; data?: string } }[] }[];
      };
      const user = body.messages.filter((m) => m.role === "user").at(-1)!;
      const image = user.content.find((block) => block.type === "image");
      expect(image?.source).toMatchObject({ media_type: "image/png", data: PNG.toString("base64") });
      expect(user.content.findIndex((block) => block.type === "image")).toBeLessThan(
        user.content.findIndex((block) => block.type === "text" && JSON.stringify(block).includes("describe the picture")),
      );
    } finally {
      await env.cleanup();
    }
  });

  it("an agent that does not declare promptCapabilities.image: FeatureUnsupportedError after initialize, before any session or prompt", async () => {
    const dir = await mkdtemp(join(tmpdir(), "acp-images-"));
    try {
      await using agent = new Agent(
        acp({
          command: process.execPath,
          args: [FAKE_AGENT],
          cwd: dir,
          inheritEnv: false,
          env: { PATH: process.env["PATH"] ?? "/usr/bin:/bin" },
        }),
      );
      const events: AgentEvent[] = [];
      const stream = agent.stream([{ type: "image", data: PNG, mimeType: "image/png" }, "describe"]);
      for await (const event of stream) events.push(event);
      const refused = await stream.result().catch((e: unknown) => e);
      expect(findError(refused, FeatureUnsupportedError)).toMatchObject({ driver: "acp", feature: "images" });
      expect(events.some((e) => e.type === "process" && e.kind === "spawn")).toBe(true);
      expect(events.some((e) => e.type === "notice" && e.message === "session started")).toBe(false);
      // The same agent without the image runs: the refusal was about the image only.
      expect((await agent.run("describe")).text).toBe("ok");
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
