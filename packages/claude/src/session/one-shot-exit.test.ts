import { describe, expect, it } from "vitest";
import { spawnCli, type CliProcess } from "@adaptor/driver/process";
import type { DriverEvent, DriverSink } from "@adaptor/driver";
import { ClaudeSession } from "./claude-session.js";

// A stand-in for the CLI: answers `initialize`, answers the prompt with one successful result, and
// exits when its stdin closes, leaving nothing running.
const FAKE = [
  "const rl = require('readline').createInterface({ input: process.stdin });",
  "const out = (v) => process.stdout.write(JSON.stringify(v) + '\\n');",
  "rl.on('line', (line) => {",
  "  const m = JSON.parse(line);",
  "  if (m.type === 'control_request') out({ type: 'control_response', response: { subtype: 'success', request_id: m.request_id, response: {} } });",
  "  if (m.type === 'user') {",
  "    out({ type: 'system', subtype: 'init', session_id: 's-1', model: 'm' });",
  "    out({ type: 'result', subtype: 'success', is_error: false, result: 'done', session_id: 's-1', num_turns: 1, usage: { input_tokens: 1, output_tokens: 1 } });",
  "  }",
  "});",
  "rl.on('close', () => process.exit(0));",
].join("\n");

describe.skipIf(process.platform !== "linux")("a one-shot turn's end", () => {
  it("with nothing left running below the CLI, its stdin is closed after one listing past the turn's baseline", async () => {
    const child = await spawnCli({ command: process.execPath, args: ["-e", FAKE], device: "claude", killGraceMs: 2_000 });
    let listings = 0;
    let listingsAtClose: number | undefined;
    // The process as the session sees it, counting its listings of what runs below it.
    const proc = new Proxy(child, {
      get(target, key) {
        if (key === "listDescendants")
          return () => {
            listings++;
            return target.listDescendants?.();
          };
        if (key === "closeStdin")
          return () => {
            listingsAtClose ??= listings;
            target.closeStdin();
          };
        const value = Reflect.get(target, key, target) as unknown;
        return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    }) as CliProcess;
    const launch = { command: process.execPath, args: [], env: {}, cwd: process.cwd(), cleanup: () => Promise.resolve() };
    const session = new ClaudeSession(proc, launch, "signature", 2_000, true);
    const events: DriverEvent[] = [];
    const sink: DriverSink = {
      emit: (event) => void events.push(event),
      requestApproval: () => Promise.reject(new Error("no approval is asked for")),
    };
    try {
      const outcome = await session.runTurn("hello", sink, new AbortController().signal, false);
      expect(outcome.exit).toMatchObject({ code: 0, signal: null });
      expect(outcome.turn.terminal?.line.result).toBe("done");
      // The turn's baseline, then one listing that found nothing (a process that stays up takes three).
      expect(listingsAtClose).toBe(2);
      expect(events.some((e) => e.type === "notice" && e.message === "background processes of the turn ended")).toBe(false);
    } finally {
      await session.close();
    }
  }, 30_000);
});
