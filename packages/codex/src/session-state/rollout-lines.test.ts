import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { eachRolloutLine } from "./rollout-lines.js";
import { modelReplies } from "../session-messages/model-replies.js";

const THREAD = "01a24663-00e3-79a2-b728-c29614097d56";
const DAY = "sessions/2026/12/05";
const line = (n: number): string =>
  `${JSON.stringify({ type: "response_item", payload: { type: "message", role: "assistant", id: `m${n}` } })}\n`;

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A Codex home holding two rollouts of the thread, `lines` reply items each. */
function home(lines: number): string {
  const dir = mkdtempSync(join(tmpdir(), "adaptor-codex-rollout-lines-"));
  dirs.push(dir);
  mkdirSync(join(dir, DAY), { recursive: true });
  const content = Array.from({ length: lines }, (_, n) => line(n)).join("");
  writeFileSync(join(dir, DAY, `rollout-2026-12-05T13-27-03-${THREAD}.jsonl`), content);
  writeFileSync(join(dir, DAY, `rollout-2026-12-05T13-28-03-${THREAD}.jsonl`), content);
  return dir;
}

describe("codex rollout reads and abort", () => {
  it("a read whose signal aborts mid-file rejects with the signal's reason and reads no further line", async () => {
    const env = { CODEX_HOME: home(5_000) };
    const controller = new AbortController();
    const reason = new Error("page read abandoned");
    let visited = 0;
    const reading = eachRolloutLine(
      {},
      THREAD,
      env,
      ['"response_item"'],
      () => {
        visited += 1;
        if (visited === 10) controller.abort(reason);
      },
      controller.signal,
    );
    await expect(reading).rejects.toBe(reason);
    expect(visited).toBe(10);
  });

  it("model replies asked with an aborted signal reject with its reason; without one, every item is read", async () => {
    const env = { CODEX_HOME: home(3) };
    const reason = new Error("aborted before the read");
    await expect(modelReplies({}, THREAD, env, AbortSignal.abort(reason))).rejects.toBe(reason);
    expect((await modelReplies({}, THREAD, env)).size).toBe(3);
  });
});
