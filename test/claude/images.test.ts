import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { whenUserSays } from "@adaptor/testkit";
import { Agent, InvalidOptionError, findError } from "adaptor";
import { claude } from "@adaptor/claude";
import { harness, type Harness } from "./support.js";

// Images in a prompt on the real claude binary: what the scripted server receives.

/** A 1×1 PNG. */
const PNG = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==", "base64");
/** A 1×1 GIF. */
const GIF = Buffer.from("R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7", "base64");

let h: Harness | undefined;
let agent: Agent | undefined;
let scratch: string | undefined;
afterEach(async () => {
  await agent?.close();
  await h?.close();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
  h = agent = scratch = undefined;
});

describe("images in a prompt (real binary)", { timeout: 180_000 }, () => {
  it("bytes, a file and a data URL reach the model as image blocks, in order, before the text", async () => {
    h = await harness([{ when: whenUserSays("describe these"), reply: { text: "three images" } }]);
    agent = new Agent(claude({ cwd: h.env.workDir, env: h.env.env, inheritEnv: false, model: "claude-sonnet-4-5" }));
    scratch = mkdtempSync(join(tmpdir(), "adaptor-images-"));
    const file = join(scratch, "shot.gif");
    writeFileSync(file, GIF);
    const result = await agent.run([
      { type: "image", data: PNG, mimeType: "image/png" },
      { type: "image", path: file },
      { type: "image", url: `data:image/png;base64,${PNG.toString("base64")}` },
      "describe these",
    ]);
    expect(result.text).toBe("three images");
    const request = h.server.requests.find((r) => r.view.lastUserText.includes("describe these"));
    const body = request?.body as { messages: { role: string; content: { type: string; text?: string; source?: unknown }[] }[] };
    const last = body.messages.filter((m) => m.role === "user").at(-1);
    const blocks = (last?.content ?? []).filter(
      (b) => b.type === "image" || (b.type === "text" && b.text?.includes("describe these") === true),
    );
    expect(blocks.map((b) => b.type)).toEqual(["image", "image", "image", "text"]);
    expect(blocks.slice(0, 3).map((b) => b.source)).toEqual([
      { type: "base64", media_type: "image/png", data: PNG.toString("base64") },
      { type: "base64", media_type: "image/gif", data: GIF.toString("base64") },
      { type: "base64", media_type: "image/png", data: PNG.toString("base64") },
    ]);
  });

  it("an image that is not one, declares another type, or is over 5 MiB is refused before the CLI starts", async () => {
    h = await harness([]);
    agent = new Agent(claude({ cwd: h.env.workDir, env: h.env.env, inheritEnv: false, model: "claude-sonnet-4-5" }));
    const cases: [unknown, RegExp][] = [
      [{ type: "image", data: Buffer.from("not an image") }, /not a PNG, JPEG, GIF or WebP/],
      [{ type: "image", data: PNG, mimeType: "image/jpeg" }, /declared image\/jpeg but its bytes are image\/png/],
      [{ type: "image", data: Buffer.concat([PNG, Buffer.alloc(5 * 1024 * 1024)]) }, /at most 5242880/],
      [{ type: "image", path: "/nonexistent/shot.png" }, /cannot be read/],
      [{ type: "image", data: PNG, path: "/x.png" }, /exactly one of data, path and url/],
    ];
    for (const [part, reason] of cases) {
      const refused = await agent.run([part as { type: "image"; data: Uint8Array }, "look"]).catch((e: unknown) => e);
      expect(findError(refused, InvalidOptionError)?.field).toBe("prompt[0]");
      expect(findError(refused, InvalidOptionError)?.reason).toMatch(reason);
    }
    expect(h.server.requests).toEqual([]);
  });
});
