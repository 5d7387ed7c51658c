import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { Agent } from "adaptor";
import { fakeCodex, fakeCodexSteps } from "./support/fake-codex.js";
import { onFakeCliFleet } from "./support/fake-cli-host.js";
import { freshSchema } from "./support/pg.js";

const THREAD_ID = "0192f0a0-0000-7000-8000-000000000001";

onFakeCliFleet("fleet delta burst", ({ closers, host: fleetOf }) => {
  describe("fleet delta burst", () => {
    it("a CLI streaming 20,000 text deltas in 1,000-line chunks: the stored deltas hold the whole text and nothing is dropped", async () => {
      const schema = freshSchema("burst");
      const front = await fleetOf(schema);
      const back = await fleetOf(schema);
      await back.worker(new Agent(fakeCodex("unused")));
      const pieces = Array.from({ length: 20_000 }, (_, i) => `w${i} `);
      const line = (delta: string) =>
        `${JSON.stringify({ method: "item/agentMessage/delta", params: { threadId: THREAD_ID, turnId: "u-fake", itemId: "m1", delta } })}\n`;
      // The fake's one-delta turn with its delta replaced by the burst, one write per 1,000 lines.
      const base = fakeCodexSteps("fin");
      const at = base.findIndex((step) => "write" in step && step.write.includes("agentMessage/delta"));
      const writes = [];
      for (let i = 0; i < pieces.length; i += 1000)
        writes.push({
          write: pieces
            .slice(i, i + 1000)
            .map(line)
            .join(""),
        });
      const dir = mkdtempSync(join(tmpdir(), "fleet-burst-"));
      closers.push(async () => rmSync(dir, { recursive: true, force: true }));
      const file = join(dir, "scenario.json");
      writeFileSync(file, JSON.stringify([...base.slice(0, at), ...writes, ...base.slice(at + 1)]));
      const handle = await front.submit("stream a lot", {
        runOptions: { env: { ADAPTOR_FAKE_CLI_SCENARIO: "", ADAPTOR_FAKE_CLI_SCENARIO_FILE: file } },
      });
      await handle.result();
      let text = "";
      const types = new Set<string>();
      for await (const { event } of handle.events()) {
        types.add(event.type);
        if (event.type === "text-delta") text += String(event.text);
      }
      expect(types.has("dropped")).toBe(false);
      expect(text).toBe(pieces.join(""));
    });
  });
});
