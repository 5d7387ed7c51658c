// Rolling upgrades: a worker never takes a run it would run unfaithfully. A fleet configured with
// `runFormat: 1` is a host of an earlier version as far as runs go: it submits to and polls the
// run queue under its own name alone, exactly what versions before prompts of parts did.
import { afterEach, describe, expect, it } from "vitest";
import { Agent, InvalidOptionError } from "adaptor";
import { Fleet } from "@adaptor/fleet";
import { ImageReferenceDriver as ImageDriver, PNG } from "./support/image-driver.js";
import { PG_URL, freshSchema, skipWithoutServer } from "./support/pg.js";

const PICTURE = { type: "image", url: `data:image/png;base64,${PNG.toString("base64")}` } as const;

describe("run format option", () => {
  it("a fleet pinned to run format 1 refuses a prompt with an image at submit, naming the part, before connecting", async () => {
    const fleet = new Fleet({ connectionString: "postgres://127.0.0.1:1/none", runFormat: 1 });
    const error = await fleet.submit(["look", PICTURE]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidOptionError);
    expect((error as InvalidOptionError).subject).toBe("fleet submit");
    expect((error as InvalidOptionError).field).toBe("prompt[1]");
    expect((error as InvalidOptionError).message).toContain("run format 2");
    await fleet.close();
  });

  it("runFormat must be a format this version knows", () => {
    for (const runFormat of [0, 3, 1.5])
      expect(() => new Fleet({ connectionString: "postgres://127.0.0.1:1/none", runFormat })).toThrow(
        /runFormat must be an integer from 1 to 2/,
      );
  });
});

if (!PG_URL) {
  skipWithoutServer("fleet run formats");
} else {
  const url = PG_URL;
  const closers: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const close of closers.splice(0).reverse()) await close();
  });

  async function host(schema: string, runFormat?: number): Promise<Fleet> {
    const fleet = new Fleet({ connectionString: url, schema, ...(runFormat !== undefined ? { runFormat } : {}) });
    await fleet.start();
    closers.push(() => fleet.close());
    return fleet;
  }

  describe("rolling upgrades: run formats", () => {
    it("a worker of an earlier run format never takes a run whose prompt has an image; a worker of this version runs it with the image and drains the earlier format's runs", async () => {
      const schema = freshSchema("fleet_format");
      const older = await host(schema, 1);
      const newer = await host(schema);
      const olderDriver = new ImageDriver({ latencyMs: 0 });
      await older.worker(new Agent(olderDriver), { concurrency: 1, name: "older" });

      const pictured = await newer.submit(["what is in this picture?", PICTURE]);
      // Submitted after the picture run, to the queue the older worker polls: its one slot would
      // have fetched the (earlier) picture run first, had that been in its queue.
      const plain = await older.submit("plain text");
      await plain.result();
      expect(olderDriver.turns).toEqual([{ prompt: "plain text", images: [] }]);
      expect((await pictured.info()).settled).toBe(false);
      const started: unknown[] = [];
      for await (const { event } of pictured.events({ follow: false })) started.push(event);
      expect(started).toEqual([]);

      const newerDriver = new ImageDriver({ latencyMs: 0 });
      await newer.worker(new Agent(newerDriver), { concurrency: 1, name: "newer" });
      await pictured.result();
      expect(newerDriver.turns).toEqual([
        { prompt: "what is in this picture?", images: [{ mimeType: "image/png", data: new Uint8Array(PNG) }] },
      ]);

      // A run an earlier-format host submits once no worker of that format is left: this version's worker runs it.
      await older.drain();
      const front = await host(schema, 1);
      const leftover = await front.submit("left by an earlier version");
      await leftover.result();
      expect(newerDriver.turns.at(-1)).toEqual({ prompt: "left by an earlier version", images: [] });
      expect(olderDriver.turns).toHaveLength(1);
    });

    it("a run of the newest format is cancelled from a host pinned to an earlier format: it never starts", async () => {
      const schema = freshSchema("fleet_format_cancel");
      const older = await host(schema, 1);
      const newer = await host(schema);
      const pictured = await newer.submit(["look", PICTURE]);
      expect(await older.handle(pictured.id).cancel("not needed")).toBe(true);
      const driver = new ImageDriver({ latencyMs: 0 });
      await newer.worker(new Agent(driver), { name: "newer" });
      const after = await newer.submit("next");
      await after.result();
      await expect(pictured.result()).rejects.toThrow(/not needed|cancel/i);
      expect(driver.turns.map((t) => t.prompt)).toEqual(["next"]);
    });
  });
}
