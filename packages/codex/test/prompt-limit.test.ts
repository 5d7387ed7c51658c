import { afterEach, describe, expect, it } from "vitest";
import { runDriver } from "@adaptor/driver/testing";
import { codexHarness, type CodexHarness } from "./support.js";

// The real binary's own limit, which the driver's refusal before launch mirrors: codex counts
// characters (Unicode code points), so a prompt of exactly 1,048,576 astral characters (twice as
// many UTF-16 units, four times as many bytes) reaches the model.

let h: CodexHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe("codex's prompt limit on the real binary", () => {
  it("a prompt of exactly 1,048,576 characters, all astral, is taken by codex and reaches the model", async () => {
    h = await codexHarness();
    const run = await runDriver(h.driver, { prompt: "\u{1F600}".repeat(1024 * 1024) });
    expect(run.error).toBeUndefined();
    expect(run.response?.failure).toBeUndefined();
    expect(run.response?.text).toContain("first user text:");
  }, 120_000);
});
