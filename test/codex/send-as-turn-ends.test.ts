import { existsSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it, vi } from "vitest";
import { Agent } from "adaptor";
import { defaultCodexCommand } from "@adaptor/codex";
import { codexHarness, type CodexHarness } from "./support.js";
import { drain } from "../support/turn-events.js";

// A host's send() that reaches the real codex app-server after codex ended the turn but before the
// driver saw the turn end: codex answers turn/steer with "no active turn to steer". A relay around
// the real binary holds codex's turn/completed until that answer has passed, so the window is there
// every time (no race).

const RELAY = fileURLToPath(new URL("./fixtures/hold-turn-end.mjs", import.meta.url));

let h: CodexHarness | undefined;
let agent: Agent | undefined;
afterEach(async () => {
  await agent?.close();
  await h?.close();
  h = agent = undefined;
});

describe("send() as a codex turn ends", { timeout: 120_000 }, () => {
  it("resolves false (not delivered, no input.accepted) when codex has no active turn to steer, and the run completes", async () => {
    h = await codexHarness({
      config: (env) => ({ command: join(env.root, "codex-relay.sh"), env: { ...env.env, HOLD_MARKER: join(env.root, "held") } }),
    });
    await writeFile(
      join(h.env.root, "codex-relay.sh"),
      `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(RELAY)} ${JSON.stringify(defaultCodexCommand())} "$@"\n`,
      { mode: 0o755 },
    );
    agent = new Agent(h.driver);
    const stream = agent.stream("hello");
    const events = drain(stream);
    // Codex has sent turn/completed (held by the relay): the turn is over on codex's side.
    await vi.waitFor(() => expect(existsSync(join(h!.env.root, "held"))).toBe(true), { timeout: 60_000, interval: 100 });
    await expect(stream.send("too late")).resolves.toBe(false);
    const seen = await events;
    const result = await stream.result();
    expect(result.status).toBe("completed");
    expect(result.text).toContain("1 user message(s)");
    expect(seen.filter((e) => e.type === "notice" && e.kind === "input.accepted")).toEqual([]);
    expect(h.server.responses().map((r) => r.view.userTexts)).toEqual([["hello"]]);
    await expect(stream.send("after the end")).resolves.toBe(false);
  });
});
