import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { codexSessionTransfer, forkLineage } from "./codex-session-transfer.js";

const PARENT = "01a24663-00e3-79a2-b728-c29614097d56";
const FORK = "01a24663-0d2f-7ff3-8e40-963ebb345b50";
const DAY = "sessions/2026/12/05";
const PARENT_NAME = `${DAY}/rollout-2026-12-05T13-27-03-${PARENT}.jsonl`;
const FORK_NAME = `${DAY}/rollout-2026-12-05T13-27-06-${FORK}.jsonl`;

const line = (ordinal: number, type: string, payload: object = {}): string =>
  `${JSON.stringify({ timestamp: "2026-12-05T13:27:03.287Z", ordinal, type, payload })}\n`;
const parentLines = [0, 1, 2, 3, 4].map((n) => line(n, n === 0 ? "session_meta" : "event_msg", n === 0 ? { id: PARENT } : { n }));
const forkFirst = line(3, "session_meta", { id: FORK, forked_from_id: PARENT, forked_from_ordinal_exclusive: 3 });

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function home(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), "adaptor-codex-lineage-"));
  dirs.push(dir);
  for (const [name, content] of Object.entries(files)) {
    mkdirSync(join(dir, DAY), { recursive: true });
    writeFileSync(join(dir, name), content);
  }
  return dir;
}

describe("codex fork lineage in the session transfer", () => {
  it("a fork's lineage is its parent's rollout through the entries before the fork point's ordinal", async () => {
    const dir = home({ [PARENT_NAME]: parentLines.join(""), [FORK_NAME]: `${forkFirst}${line(4, "event_msg")}` });
    expect(await forkLineage(dir, FORK, PARENT, {})).toEqual([
      { name: PARENT_NAME, bytes: Buffer.byteLength(parentLines.slice(0, 3).join("")) },
    ]);
    // A fork of a fork: the parent's own lineage first.
    const inherited = [{ name: `${DAY}/rollout-2026-12-05T13-20-00-01a24660-0000-7000-8000-000000000000.jsonl`, bytes: 10 }];
    expect((await forkLineage(dir, FORK, PARENT, { lineage: inherited }))?.[0]).toEqual(inherited[0]);
    // Not a fork of that parent: nothing to carry.
    expect(await forkLineage(dir, PARENT, FORK, {})).toBeUndefined();
  });

  it("the export carries the lineage as recorded; the import writes it, keeping a local copy that already begins with it", async () => {
    const bytes = Buffer.byteLength(parentLines.slice(0, 3).join(""));
    const source = home({ [PARENT_NAME]: parentLines.join(""), [FORK_NAME]: forkFirst });
    const transfer = codexSessionTransfer({}, async () => undefined);
    const location = (dir: string) => ({ resumeId: FORK, env: { CODEX_HOME: dir }, data: { lineage: [{ name: PARENT_NAME, bytes }] } });
    const files = (await transfer.exportSession(location(source)))!;
    expect(files.map((f) => [f.name, f.content.byteLength])).toEqual([
      [FORK_NAME, Buffer.byteLength(forkFirst)],
      [PARENT_NAME, bytes],
    ]);

    const empty = home({});
    await transfer.importSession(location(empty), files);
    expect(readFileSync(join(empty, PARENT_NAME), "utf8")).toBe(parentLines.slice(0, 3).join(""));
    expect(readFileSync(join(empty, FORK_NAME), "utf8")).toBe(forkFirst);

    // This host continued the parent: its longer copy stays.
    const newer = home({ [PARENT_NAME]: `${parentLines.join("")}${line(5, "event_msg")}` });
    await transfer.importSession(location(newer), files);
    expect(readFileSync(join(newer, PARENT_NAME), "utf8")).toBe(`${parentLines.join("")}${line(5, "event_msg")}`);
    // An older or other copy is replaced.
    const older = home({ [PARENT_NAME]: parentLines.slice(0, 2).join("") });
    await transfer.importSession(location(older), files);
    expect(readFileSync(join(older, PARENT_NAME), "utf8")).toBe(parentLines.slice(0, 3).join(""));

    // Only rollout names, and at least one of the thread's own.
    await expect(transfer.importSession(location(empty), [{ name: PARENT_NAME, content: Buffer.from("x") }])).rejects.toThrow(TypeError);
    await expect(
      transfer.importSession(location(empty), [files[0]!, { name: "sessions/../../config.toml", content: Buffer.from("x") }]),
    ).rejects.toThrow(TypeError);
  });
});
