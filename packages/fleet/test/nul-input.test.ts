// PostgreSQL's text and jsonb cannot hold U+0000; a prompt may (it travels inside JSON), and so may
// run metadata: the fleet stores them escaped and the worker's driver gets them byte-exact.
import { afterEach, describe, expect, it } from "vitest";
import { Agent, InvalidOptionError } from "adaptor";
import type { DriverRequest, DriverResponse, DriverSink } from "@adaptor/driver";
import { ReferenceDriver } from "@adaptor/driver/testing";
import { Fleet } from "@adaptor/fleet";
import { escapeNul, holdsNul, NUL_ESCAPED_KEY, unescapeNul } from "../src/schema/nul-escape.js";
import { PG_URL, freshSchema, skipWithoutServer } from "./support/pg.js";
import { until } from "./support/processes.js";

/** The reference driver, keeping each turn's prompt and metadata. */
class RecordingDriver extends ReferenceDriver {
  readonly turns: { prompt: string; metadata: unknown }[] = [];
  override run(request: DriverRequest, sink: DriverSink, signal: AbortSignal): Promise<DriverResponse> {
    this.turns.push({ prompt: request.prompt, metadata: request.metadata });
    return super.run(request, sink, signal);
  }
}

describe("NUL escape", () => {
  it("the marker of an escaped run is an unknown run option to an Agent, so a worker that does not unescape refuses the run", async () => {
    const error = await new Agent(new RecordingDriver({ latencyMs: 0 }))
      .run("hi", { [NUL_ESCAPED_KEY]: true } as never)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidOptionError);
    expect((error as InvalidOptionError).field).toBe(NUL_ESCAPED_KEY);
  });

  it("round-trips strings and keys holding U+0000 and the escape character itself", () => {
    const value = { "k\u0000": ["a\u0000b", "\uE000", "\uE0000", "\u0000\uE000\u0000", "plain"], n: 1, z: null };
    const escaped = escapeNul(value);
    expect(holdsNul(escaped)).toBe(false);
    expect(unescapeNul(escaped)).toEqual(value);
  });
});

if (!PG_URL) {
  skipWithoutServer("fleet NUL input");
} else {
  const url = PG_URL;
  const closers: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const close of closers.splice(0).reverse()) await close();
  });

  describe("a prompt or metadata holding NUL", () => {
    it("reaches the worker's driver byte-exact: a text prompt, a text part and metadata", async () => {
      const fleet = new Fleet({ connectionString: url, schema: freshSchema("fleet_nul") });
      closers.push(() => fleet.close());
      const driver = new RecordingDriver({ latencyMs: 0 });
      await fleet.worker(new Agent(driver), { concurrency: 1 });

      const text = await fleet.submit("before\u0000after \uE000 kept");
      await text.result();
      const part = await fleet.submit([{ type: "text", text: "a\u0000b" }]);
      await part.result();
      const metadata = { "key\u0000": "a\u0000b", nested: ["\u0000"] };
      const meta = await fleet.submit("with metadata", { runOptions: { metadata } });
      await meta.result();

      expect(driver.turns).toEqual([
        { prompt: "before\u0000after \uE000 kept", metadata: undefined },
        { prompt: "a\u0000b", metadata: undefined },
        { prompt: "with metadata", metadata },
      ]);
    });

    it("an approval, its answer and the verdict holding NUL (a tool command, a failure message) are stored and read back as they were", async () => {
      const fleet = new Fleet({ connectionString: url, schema: freshSchema("fleet_nul_out") });
      closers.push(() => fleet.close());
      const driver = new RecordingDriver({ latencyMs: 0 });
      await fleet.worker(new Agent(driver), { concurrency: 1 });

      const tool = await fleet.submit("TOOL echo a\u0000b", { runOptions: { policy: { approvals: { permission: "ask" } } } });
      let pending: Awaited<ReturnType<typeof tool.pendingApprovals>> = [];
      await until(async () => (pending = await tool.pendingApprovals()).length > 0, "the tool call's approval");
      const [asked] = pending;
      expect(JSON.stringify(asked!.request)).toContain("echo a\\u0000b");
      expect((await fleet.approval(asked!.id))?.request).toEqual(asked!.request);
      await fleet.answer(asked!.id, { outcome: "approve" });
      await tool.result();
      expect(driver.toolRuns).toEqual(["echo a\u0000b"]);

      const failed = await fleet.submit("FAIL bad\u0000byte");
      const error = await failed.result().catch((e: unknown) => e);
      expect(String((error as Error).message)).toContain("bad\u0000byte");
      const replay: unknown[] = [];
      for await (const { event } of failed.events({ after: 0, follow: false })) replay.push(event);
      expect(holdsNul(replay.at(-1))).toBe(true);
    });
  });
}
