import { randomUUID } from "node:crypto";
import { HttpAgent } from "@ag-ui/client";
import type { Message } from "@ag-ui/core";
import { Agent } from "adaptor";
import { Fleet } from "@adaptor/fleet";
import { ImageReferenceDriver, PNG } from "../../fleet/test/support/image-driver.js";
import { freshSchema, PG_URL } from "../../fleet/test/support/pg.js";
import { afterEach, describe, expect, it } from "vitest";
import { postJson, readUntil, sseMessages, serve, type Served } from "./support.js";

// Images in bridge prompts, sent by the real clients (fetch for `raw`, @ag-ui/client for `ag-ui`),
// seen by a reference driver that declares images and records what each turn was given.

const PNG64 = PNG.toString("base64");

let served: Served | undefined;
afterEach(async () => {
  await served?.close();
  served = undefined;
});

async function serveImages(options: { maxImages?: number; maxImageBytes?: number } = {}): Promise<ImageReferenceDriver> {
  const driver = new ImageReferenceDriver({ latencyMs: 0 });
  served = await serve({ runner: new Agent(driver), ...options });
  return driver;
}

/** Runs "what is in this picture?" with the PNG over `raw`; the run must succeed. */
async function runPicturePrompt(url: string): Promise<void> {
  const response = await postJson(`${url}/runs`, {
    prompt: [
      { type: "text", text: "what is in this picture?" },
      { type: "image", data: PNG64, mimeType: "image/png" },
    ],
  });
  expect(response.status).toBe(200);
  const events = await readUntil(sseMessages(response), (message) => message.data["type"] === "run-finished");
  expect(events.at(-1)?.data).toMatchObject({ type: "run-finished", ok: true });
}

/** The driver ran one turn: the picture prompt's text and the PNG's bytes. */
function expectPictureTurn(driver: ImageReferenceDriver): void {
  expect(driver.turns.map((turn) => [turn.prompt, turn.images.map((image) => image.mimeType)])).toEqual([
    ["what is in this picture?", ["image/png"]],
  ]);
  expect(Buffer.from(driver.turns[0]!.images[0]!.data).equals(PNG)).toBe(true);
}

describe("raw protocol: images in the prompt", () => {
  it("a prompt of a text part and a base64 image part reaches the driver as the text and the image's bytes", async () => {
    const driver = await serveImages();
    await runPicturePrompt(served!.url);
    expectPictureTurn(driver);
  });

  it("an image named by path is refused with 400 image_source_refused: a page cannot make the server read its files", async () => {
    const driver = await serveImages();
    const response = await postJson(`${served!.url}/runs`, {
      prompt: [
        { type: "text", text: "look" },
        { type: "image", path: "/etc/passwd" },
      ],
    });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe("image_source_refused");
    expect(driver.turns).toHaveLength(0);
  });

  it("an image of another media type, or whose bytes are not its declared type, is refused with 400 unsupported_image_type", async () => {
    const driver = await serveImages();
    const svg = await postJson(`${served!.url}/runs`, { prompt: [{ type: "image", data: PNG64, mimeType: "image/svg+xml" }] });
    expect(svg.status).toBe(400);
    expect(((await svg.json()) as { error: { code: string } }).error.code).toBe("unsupported_image_type");
    const jpeg = await postJson(`${served!.url}/runs`, { prompt: [{ type: "image", data: PNG64, mimeType: "image/jpeg" }] });
    expect(jpeg.status).toBe(400);
    expect(((await jpeg.json()) as { error: { code: string; message: string } }).error).toEqual({
      code: "unsupported_image_type",
      message: "prompt[0].data is not a image/jpeg image (its first bytes are not that format's)",
    });
    expect(driver.turns).toHaveLength(0);
  });

  it("more images than maxImages get 413 too_many_images; an image over maxImageBytes gets 413 image_too_large", async () => {
    const driver = await serveImages({ maxImages: 1, maxImageBytes: PNG.length });
    const image = { type: "image", data: PNG64, mimeType: "image/png" };
    const many = await postJson(`${served!.url}/runs`, { prompt: [{ type: "text", text: "two" }, image, image] });
    expect(many.status).toBe(413);
    expect(((await many.json()) as { error: { code: string } }).error.code).toBe("too_many_images");
    const big = Buffer.concat([PNG, Buffer.alloc(1)]).toString("base64");
    const large = await postJson(`${served!.url}/runs`, { prompt: [{ type: "image", data: big, mimeType: "image/png" }] });
    expect(large.status).toBe(413);
    expect(((await large.json()) as { error: { code: string; message: string } }).error).toMatchObject({
      code: "image_too_large",
      message: `prompt[0] holds ${PNG.length + 1} bytes; this bridge takes at most ${PNG.length} per image`,
    });
    expect(driver.turns).toHaveLength(0);
  });
});

describe("over a fleet: images in the prompt", () => {
  it.skipIf(!PG_URL)("a prompt with an image survives the fleet: the worker's driver gets the text and the image's bytes", async () => {
    const schema = freshSchema("bridge_images");
    const driver = new ImageReferenceDriver({ latencyMs: 0 });
    const worker = new Fleet({ connectionString: PG_URL!, schema });
    const front = new Fleet({ connectionString: PG_URL!, schema });
    try {
      await worker.start();
      await worker.worker(new Agent(driver), { concurrency: 1, name: "w1" });
      await front.start();
      served = await serve({ fleet: front });
      await runPicturePrompt(served.url);
      expectPictureTurn(driver);
    } finally {
      await served?.close();
      served = undefined;
      await front.close();
      await worker.close();
    }
  });
});

describe("ag-ui protocol: images in the last user message", () => {
  it("a binary image part (AG-UI before 1.0) sent by @ag-ui/client's HttpAgent reaches the driver as the image's bytes", async () => {
    const driver = await serveImages();
    const message = {
      id: randomUUID(),
      role: "user",
      content: [
        { type: "text", text: "describe it" },
        { type: "binary", mimeType: "image/png", data: PNG64 },
      ],
    } as unknown as Message;
    const agent = new HttpAgent({ url: `${served!.url}/ag-ui`, initialMessages: [message] });
    const { result } = await agent.runAgent({ runId: "run-binary" });
    expect(result).toEqual({ text: "Reference reply #1: describe it" });
    expect(driver.turns).toHaveLength(1);
    expect(driver.turns[0]!.images.map((image) => image.mimeType)).toEqual(["image/png"]);
    expect(Buffer.from(driver.turns[0]!.images[0]!.data).equals(PNG)).toBe(true);
  });

  it("an image part with a data source (AG-UI 1.0) reaches the driver; one by URL is refused with 400 image_source_refused", async () => {
    const driver = await serveImages();
    const message: Message = {
      id: randomUUID(),
      role: "user",
      content: [
        { type: "text", text: "and this one?" },
        { type: "image", source: { type: "data", value: PNG64, mimeType: "image/png" } },
      ],
    };
    const agent = new HttpAgent({ url: `${served!.url}/ag-ui`, initialMessages: [message] });
    await agent.runAgent({ runId: "run-image" });
    expect(driver.turns.map((turn) => [turn.prompt, turn.images.length])).toEqual([["and this one?", 1]]);
    const byUrl = await postJson(`${served!.url}/ag-ui`, {
      threadId: "t",
      runId: "run-url",
      state: {},
      tools: [],
      context: [],
      forwardedProps: {},
      messages: [{ id: "m", role: "user", content: [{ type: "image", source: { type: "url", value: "http://127.0.0.1/x.png" } }] }],
    });
    expect(byUrl.status).toBe(400);
    expect(((await byUrl.json()) as { error: { code: string } }).error.code).toBe("image_source_refused");
    expect(driver.turns).toHaveLength(1);
  });
});
