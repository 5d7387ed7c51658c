import { randomUUID } from "node:crypto";
import { text as streamText } from "node:stream/consumers";
import { getHeapSnapshot } from "node:v8";
import type { DriverEvent } from "@adaptor/driver";
import { describe, expect, it, vi } from "vitest";
import { DeltaLineReader, parseAppServerLine } from "./parse-line.js";
import { AppServerTurnState } from "./turn-state.js";

const THREAD = "019a0000-0000-7000-8000-000000000001";
const TURN = "019a0000-0000-7000-8000-100000000001";
const OTHER_TURN = "019a0000-0000-7000-8000-100000000000";

const delta = (d: string, itemId = "msg_1", ids: { threadId?: string; turnId?: string } = {}, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ method: "item/agentMessage/delta", params: { threadId: THREAD, turnId: TURN, ...ids, itemId, delta: d }, ...extra });

/** A turn state whose thread and turn are known, and what it emitted. */
function turn(): { state: AppServerTurnState; events: DriverEvent[] } {
  const events: DriverEvent[] = [];
  const state = new AppServerTurnState((event) => events.push(event));
  state.threadId = THREAD;
  state.setTurnId(TURN);
  return { state, events };
}

/** The session's way: the direct read first, else parse and dispatch the notification. */
function feed(state: AppServerTurnState, line: string): "direct" | "parsed" {
  if (state.acceptLine(line)) return "direct";
  const message = parseAppServerLine(line) as { method: string; params: unknown };
  state.accept(message.method, message.params, line);
  return "parsed";
}

describe("AppServerTurnState.acceptLine", () => {
  const lines = [
    delta("one "),
    delta('esc "\\\n😀 ', "msg_1", {}, { emittedAtMs: 1796009019157 }),
    delta("other item", "msg_2"),
    delta("late", "msg_1", { turnId: "019a0000-0000-7000-8000-100000000000" }),
    delta("other thread", "msg_1", { threadId: "019a0000-0000-7000-8000-000000000002" }),
    JSON.stringify({ method: "item/agentMessage/delta", params: { delta: "reordered", itemId: "msg_1", turnId: TURN, threadId: THREAD } }),
    JSON.stringify({
      method: "item/completed",
      params: { threadId: THREAD, turnId: TURN, item: { type: "agentMessage", id: "msg_1", text: "t" } },
    }),
    JSON.stringify({
      method: "item/completed",
      params: { threadId: THREAD, turnId: TURN, item: { type: "agentMessage", id: "msg_3", text: "u" } },
    }),
  ];

  it("reads this turn's delta lines directly and emits what accept emits for their parsed value; every other line is left to the caller", () => {
    const direct = turn();
    const parsed = turn();
    expect(lines.map((line) => feed(direct.state, line))).toEqual([
      "direct",
      "direct",
      "direct",
      "parsed",
      "parsed",
      "parsed",
      "parsed",
      "parsed",
    ]);
    for (const line of lines) {
      const message = JSON.parse(line) as { method: string; params: unknown };
      parsed.state.accept(message.method, message.params, line);
    }
    expect(direct.events).toEqual(parsed.events);
    expect(direct.events).toEqual([
      { type: "text-delta", text: "one ", messageId: "msg_1" },
      { type: "text-delta", text: 'esc "\\\n😀 ', messageId: "msg_1" },
      { type: "text-delta", text: "other item", messageId: "msg_2" },
      { type: "text-delta", text: "reordered", messageId: "msg_1" },
      { type: "text-delta", text: "u", messageId: "msg_3" }, // msg_1 was streamed: its completed text is not repeated
    ]);
    expect([direct.state.dropped, parsed.state.dropped]).toEqual([1, 1]);
    expect(direct.state.transcript).toEqual(parsed.state.transcript);
  });

  it("reads nothing directly before the turn id is known: such lines are held by accept and replayed", () => {
    const events: DriverEvent[] = [];
    const state = new AppServerTurnState((event) => events.push(event));
    state.threadId = THREAD;
    expect(state.acceptLine(delta("early "))).toBe(false);
    state.accept("item/agentMessage/delta", (JSON.parse(delta("early ")) as { params: unknown }).params, delta("early "));
    expect(events).toEqual([]);
    state.setTurnId(TURN);
    expect(state.acceptLine(delta("then"))).toBe(true);
    expect(events.map((e) => (e.type === "text-delta" ? e.text : e.type))).toEqual(["early ", "then"]);
  });
});

/** The plain path: every line parsed and dispatched. */
function feedParsed(state: AppServerTurnState, line: string): void {
  const message = JSON.parse(line) as { method: string; params: unknown };
  state.accept(message.method, message.params, line);
}

/** A notification line with `params` in the given key order (`method` first unless `paramsFirst`). */
function line(method: string, params: [string, unknown][], paramsFirst = false): string {
  const p = Object.fromEntries(params);
  return JSON.stringify(paramsFirst ? { params: p, method } : { method, params: p });
}

const ids = (turnId = TURN): [string, unknown][] => [
  ["threadId", THREAD],
  ["turnId", turnId],
];

/** Deltas with every JSON escape, non-BMP text, lone surrogates, a quote before what looks like a key, a long text. */
const TEXTS = ["plain ", 'say "hi"\n', "tab\t\\ back", "😀 \ud83d", "\u0000\u001f\u2028", '","itemId":"x', "x".repeat(40), ""];

/** The lines of one turn: each delta method in codex's order and in others, then the items completed. */
function script(): string[] {
  const lines: string[] = [];
  const command = { type: "commandExecution", id: "cmd_1", command: "ls", cwd: "/", status: "inProgress", aggregatedOutput: null };
  lines.push(line("item/started", [...ids(), ["item", command]]));
  for (const [i, text] of TEXTS.entries()) {
    // agent message: codex's order (the canonical reader), the delta first, and `params` before `method`
    lines.push(line("item/agentMessage/delta", [...ids(), ["itemId", "msg_1"], ["delta", text]]));
    lines.push(line("item/agentMessage/delta", [["delta", text], ["itemId", "msg_2"], ...ids().reverse()]));
    lines.push(line("item/agentMessage/delta", [["itemId", `msg_${3 + (i % 2)}`], ["delta", text], ...ids()], true));
    // reasoning: a part index that changes once (a new shape), in codex's order and reordered
    lines.push(line("item/reasoning/summaryTextDelta", [...ids(), ["itemId", "rs_1"], ["delta", text], ["summaryIndex", i < 4 ? 0 : 1]]));
    lines.push(line("item/reasoning/textDelta", [["contentIndex", 0], ["delta", text], ["itemId", "rs_2"], ...ids()]));
    // command output, kept until the item completes
    lines.push(line("item/commandExecution/outputDelta", [...ids(), ["itemId", "cmd_1"], ["delta", text]]));
    lines.push(line("item/commandExecution/outputDelta", [["delta", `${i}:${text}`], ["itemId", "cmd_1"], ...ids()]));
    // another turn's delta in a learned shape: dropped, never read as this turn's
    lines.push(line("item/agentMessage/delta", [["delta", text], ["itemId", "msg_2"], ...ids(OTHER_TURN).reverse()]));
  }
  lines.push(line("item/completed", [...ids(), ["item", { ...command, status: "completed", aggregatedOutput: "", exitCode: 0 }]]));
  lines.push(line("item/completed", [...ids(), ["item", { type: "reasoning", id: "rs_1", summary: ["s"], content: [] }]]));
  lines.push(line("item/completed", [...ids(), ["item", { type: "agentMessage", id: "msg_2", text: "done" }]]));
  return lines;
}

describe("DeltaLineTemplates through AppServerTurnState.acceptLine", () => {
  it("reads every delta method in any key order from its line once one line of its shape was parsed, with the events, transcript and output of the parsed path", () => {
    const lines = script();
    const direct = turn();
    const parsed = turn();
    const how = lines.map((l) => feed(direct.state, l));
    for (const l of lines) feedParsed(parsed.state, l);
    expect(direct.events).toEqual(parsed.events);
    expect(direct.state.transcript).toEqual(parsed.state.transcript);
    expect([direct.state.dropped, parsed.state.dropped]).toEqual([TEXTS.length, TEXTS.length]);
    // Per method, item and shape, the first line is parsed and the rest are read directly.
    const read = (method: string) => lines.filter((l, i) => l.includes(`"method":"${method}"`) && how[i] === "direct").length;
    expect(read("item/agentMessage/delta")).toBe(3 * TEXTS.length - 3); // codex's order from the first line on; msg_2, msg_3 and msg_4 after one
    expect(read("item/reasoning/summaryTextDelta")).toBe(TEXTS.length - 2); // two part indexes: two shapes
    expect(read("item/reasoning/textDelta")).toBe(TEXTS.length - 1);
    expect(read("item/commandExecution/outputDelta")).toBe(2 * TEXTS.length - 2);
    const output = direct.events.find((e) => e.type === "tool-result");
    expect(output).toMatchObject({ type: "tool-result", id: "cmd_1", isError: false });
    expect(output?.type === "tool-result" && output.output).toBe(TEXTS.map((t, i) => `${t}${i}:${t}`).join(""));
  });

  it("reads a run of deltas in another key order by its learned shape without trying codex's order first, and goes back to codex's order when a line is in it", () => {
    const reordered = (text: string, itemId = "msg_1") =>
      line("item/agentMessage/delta", [["delta", text], ["itemId", itemId], ...ids()], true);
    const lines = [
      ...Array.from({ length: 50 }, (_, i) => reordered(`r${i} `)),
      ...Array.from({ length: 5 }, (_, i) => delta(`c${i} `)),
      ...Array.from({ length: 5 }, (_, i) => reordered(`s${i} `, "msg_2")),
      reordered("again "),
      delta('esc "\\\n '),
      line("item/completed", [...ids(), ["item", { type: "agentMessage", id: "msg_2", text: "done" }]]),
    ];
    const direct = turn();
    const parsed = turn();
    const tried = vi.spyOn(DeltaLineReader.prototype, "read");
    let how: string[];
    try {
      how = lines.map((l) => feed(direct.state, l));
      const triedOn = tried.mock.calls.map(([text]) => lines.indexOf(text));
      // codex's order reader: the first reordered line and the one after it (the shape is learned
      // from the first), then not until a line the shape refuses (line 50, in codex's order).
      expect(triedOn.filter((i) => i < 50)).toEqual([0, 1]);
      expect(triedOn).toContain(50);
    } finally {
      tried.mockRestore();
    }
    for (const l of lines) feedParsed(parsed.state, l);
    expect(how.filter((h) => h === "parsed")).toHaveLength(3); // the first line of each shape, and the item's end
    expect(direct.events).toEqual(parsed.events);
    expect(direct.events.map((e) => (e.type === "text-delta" ? e.text : e.type)).join("")).toBe(
      [...Array.from({ length: 50 }, (_, i) => `r${i} `), ...Array.from({ length: 5 }, (_, i) => `c${i} `)].join("") +
        Array.from({ length: 5 }, (_, i) => `s${i} `).join("") +
        'again esc "\\\n ',
    );
    expect(direct.state.transcript).toEqual(parsed.state.transcript);
  });

  it("refuses or reads as JSON.parse reads every one-character change of a learned line", () => {
    const learned = [
      line("item/agentMessage/delta", [["delta", 'a "b" \\ c'], ["itemId", "msg_1"], ...ids()]),
      line("item/reasoning/summaryTextDelta", [...ids(), ["itemId", "rs_1"], ["delta", "think\n"], ["summaryIndex", 3]]),
      line("item/commandExecution/outputDelta", [["itemId", "cmd_1"], ["delta", "out\t😀"], ...ids()], true),
    ];
    const replacements = ['"', "\\", "x", "}", " ", ",", "1", "\u0001", "é", ""];
    let readDirectly = 0;
    // Learned only, and learned then read once (the next line is tried by the learned shape first).
    for (const [original, times] of learned.flatMap((l) => [[l, 1] as const, [l, 2] as const])) {
      for (let at = 0; at < original.length; at++) {
        for (const r of replacements) {
          const changed = original.slice(0, at) + r + original.slice(at + 1);
          if (changed === original) continue;
          const direct = turn();
          for (let i = 0; i < times; i++) feed(direct.state, original); // learned by the first
          let valid = true;
          try {
            JSON.parse(changed);
          } catch {
            valid = false;
          }
          const accepted = direct.state.acceptLine(changed);
          if (!accepted) continue;
          readDirectly++;
          expect(valid, changed).toBe(true);
          const parsed = turn();
          for (let i = 0; i < times; i++) feedParsed(parsed.state, original);
          feedParsed(parsed.state, changed);
          const done = line("item/completed", [
            ...ids(),
            [
              "item",
              { type: "commandExecution", id: "cmd_1", command: "ls", cwd: "/", status: "completed", aggregatedOutput: "", exitCode: 0 },
            ],
          ]);
          feedParsed(direct.state, done);
          feedParsed(parsed.state, done);
          expect(direct.events, changed).toEqual(parsed.events);
        }
      }
    }
    expect(readDirectly).toBeGreaterThan(20); // changes inside the ids and deltas are still read
  });
});

/**
 * Whether a string beginning with `prefix` + `id` is on this process's heap (a heap snapshot
 * collects garbage first, and names each string by its first characters). The needle is made after
 * the snapshot, so that it is not itself on the heap.
 */
async function onHeap(prefix: string, id: string): Promise<boolean> {
  const snapshot = await streamText(getHeapSnapshot());
  return snapshot.includes(prefix + id);
}

describe("AppServerTurnState.releaseLines", () => {
  /** A long item id and delta: slices of the line, not copies V8 makes of short ones. */
  const ITEM = `msg_${"0123456789abcdef".repeat(2)}`;
  const TEXT = "a delta longer than the slices V8 copies ".repeat(4);
  const cases: [string, string, (itemId: string, text: string) => string][] = [
    ["codex's order", delta("first"), (itemId, text) => delta(text, itemId)],
    [
      "a learned shape",
      line("item/agentMessage/delta", [["delta", "first"], ["itemId", ITEM], ...ids()], true),
      (itemId, text) => line("item/agentMessage/delta", [["delta", text], ["itemId", itemId], ...ids()], true),
    ],
    [
      "a learned shape whose deltas are kept",
      line("item/commandExecution/outputDelta", [["delta", "first"], ["itemId", ITEM], ...ids()], true),
      (itemId, text) => line("item/commandExecution/outputDelta", [["delta", text], ["itemId", itemId], ...ids()], true),
    ],
  ];

  for (const [name, first, next] of cases) {
    it(`lets go of every part of the lines read directly (${name}), so the stdout chunk they were cut from can go while the turn waits`, async () => {
      // What the state emits is the caller's: kept here as copies, so that only the state holds slices.
      const events: DriverEvent[] = [];
      const state = new AppServerTurnState((event) => events.push(JSON.parse(JSON.stringify(event)) as DriverEvent));
      state.threadId = THREAD;
      state.setTurnId(TURN);
      feed(state, first);
      const id = randomUUID();
      // A decoded stdout chunk, as the session gets it, with the line cut from it (a slice).
      const how = ((): string => {
        const chunk = `{"method":"note","params":{"note":"chunk-${id}"}}\n${next(ITEM, TEXT)}\n`;
        return feed(state, chunk.slice(chunk.indexOf("\n") + 1, chunk.length - 1));
      })();
      expect(how).toBe("direct");
      // Command output is kept until its item completes (no event per delta).
      if (!name.endsWith("kept")) expect(events.at(-1)).toEqual({ type: "text-delta", text: TEXT, messageId: ITEM });
      state.releaseLines();
      /^x$/.test("x"); // the engine keeps the last regular-expression subject (the line) until the next match
      expect(await onHeap("chunk-", id)).toBe(false);
      expect(feed(state, next(ITEM, "more"))).toBe("direct");
    });
  }
});

describe("AppServerTurnState model-call retries", () => {
  const retry = (message = "Reconnecting... waiting for network", willRetry = true) => ({
    threadId: THREAD,
    turnId: TURN,
    willRetry,
    error: { message, codexErrorInfo: { responseStreamDisconnected: { httpStatusCode: null } }, additionalDetails: null },
  });
  function retrying(max: number): AppServerTurnState {
    const state = new AppServerTurnState(() => undefined, max);
    state.threadId = THREAD;
    state.setTurnId(TURN);
    return state;
  }

  it("ends the turn at the first willRetry error past maxRetries, keeping codex's last error text", () => {
    const state = retrying(2);
    expect(state.accept("error", retry("first"), "")).toBe(false);
    expect(state.accept("error", retry("second"), "")).toBe(false);
    expect(state.gaveUp).toBeUndefined();
    expect(state.accept("error", retry("third"), "")).toBe(true);
    expect(state.gaveUp).toEqual({
      message: "third",
      retries: 3,
      codexErrorInfo: { responseStreamDisconnected: { httpStatusCode: null } },
    });
  });

  it("counts only consecutive retries: model output in between starts the count again", () => {
    const state = retrying(1);
    expect(state.accept("error", retry(), "")).toBe(false);
    feed(state, delta("some text"));
    expect(state.accept("error", retry(), "")).toBe(false);
    state.accept(
      "thread/tokenUsage/updated",
      {
        threadId: THREAD,
        turnId: TURN,
        tokenUsage: { last: { inputTokens: 1, outputTokens: 1, cachedInputTokens: 0, cacheWriteInputTokens: 0 } },
      },
      "",
    );
    expect(state.accept("error", retry(), "")).toBe(false);
    expect(state.accept("error", retry(), "")).toBe(true);
    expect(state.gaveUp?.retries).toBe(2);
  });

  it("a retry codex counts itself (Reconnecting... n/m) is left to codex's bound: websocket tries, then HTTP ones", () => {
    const state = retrying(1);
    for (let n = 2; n <= 5; n++) expect(state.accept("error", retry(`Reconnecting... ${n}/5`), "")).toBe(false);
    expect(state.accept("warning", { threadId: THREAD, message: "Falling back from WebSockets to HTTPS transport. x" }, "")).toBe(false);
    expect(state.accept("error", retry(), "")).toBe(false);
    expect(state.accept("error", retry("Reconnecting... 1/2"), "")).toBe(false);
    expect(state.gaveUp).toBeUndefined();
    expect(state.accept("error", retry(), "")).toBe(true);
    expect(state.gaveUp?.retries).toBe(2);
  });

  it("a counted retry past codex's 5th try counts (a provider's own long stream_max_retries)", () => {
    const state = retrying(1);
    for (let n = 1; n <= 5; n++) expect(state.accept("error", retry(`Reconnecting... ${n}/20`), "")).toBe(false);
    expect(state.accept("error", retry("Reconnecting... 6/20"), "")).toBe(false);
    expect(state.accept("error", retry("Reconnecting... 7/20"), "")).toBe(true);
    expect(state.gaveUp).toMatchObject({ message: "Reconnecting... 7/20", retries: 2 });
  });

  it("an error codex will not retry is not counted (its turn/completed carries the verdict)", () => {
    const state = retrying(0);
    expect(state.accept("error", retry("fatal", false), "")).toBe(false);
    expect(state.gaveUp).toBeUndefined();
  });

  it("has no bound by default", () => {
    const state = new AppServerTurnState(() => undefined);
    state.threadId = THREAD;
    state.setTurnId(TURN);
    for (let i = 0; i < 50; i++) expect(state.accept("error", retry(), "")).toBe(false);
    expect(state.gaveUp).toBeUndefined();
  });
});

describe("AppServerTurnState at the turn's end", () => {
  const command = (id: string) => ({
    type: "commandExecution",
    id,
    command: "sleep 100",
    cwd: "/w",
    processId: null,
    status: "inProgress",
    commandActions: [],
    aggregatedOutput: null,
    exitCode: null,
    durationMs: null,
  });
  const at = (params: Record<string, unknown>) => ({ threadId: THREAD, turnId: TURN, ...params });
  const completed = (status: string) => at({ turn: { id: TURN, status, items: [], error: null } });

  it("answers every tool call codex left open before the turn completed notice: its output so far, else still running; isError", () => {
    const { state, events } = turn();
    state.accept("item/started", at({ item: command("c1") }), "");
    state.accept("item/commandExecution/outputDelta", at({ itemId: "c1", delta: "partial\n" }), "");
    state.accept("item/started", at({ item: command("c2") }), "");
    expect(state.accept("turn/completed", completed("completed"), "")).toBe(true);
    state.accept("item/completed", at({ item: { ...command("c2"), status: "failed", exitCode: 143 } }), "");
    const tail = events.filter((e) => e.type === "tool-result" || (e.type === "notice" && e.kind === "lifecycle"));
    expect(tail).toEqual([
      { type: "tool-result", id: "c1", name: "shell", output: "partial\n", isError: true },
      { type: "tool-result", id: "c2", name: "shell", output: "still running when the turn ended, ended by the SDK", isError: true },
      { type: "notice", kind: "lifecycle", message: "turn completed", data: { turnId: TURN, status: "completed" } },
    ]);
    expect(state.transcript.filter((item) => item.kind === "tool-result").map((item) => item.toolCallId)).toEqual(["c1", "c2"]);
    expect(state.late).toBe(1);
  });

  it("a second turn/completed changes nothing: the first one's status stays", () => {
    const { state } = turn();
    state.accept("turn/completed", completed("completed"), "first");
    expect(state.accept("turn/completed", completed("failed"), "second")).toBe(false);
    expect([state.completed?.status, state.completedJson, state.late]).toEqual(["completed", "first", 1]);
  });
});

describe("AppServerTurnState usage", () => {
  const breakdown = (input: number, output: number) => ({
    totalTokens: input + output,
    inputTokens: input,
    cachedInputTokens: 0,
    cacheWriteInputTokens: 0,
    outputTokens: output,
    reasoningOutputTokens: 0,
  });
  type Tokens = readonly [input: number, output: number];
  const update = (total: Tokens, last: Tokens, turnId = TURN) => ({
    threadId: THREAD,
    turnId,
    tokenUsage: { total: breakdown(...total), last: breakdown(...last), modelContextWindow: null },
  });
  const compaction = { threadId: THREAD, turnId: TURN, item: { type: "contextCompaction", id: "compaction_1" } };
  /** What codex 0.171.0 sends in a turn it compacts the context for, after a turn that used 50,000 + 10 tokens. */
  function compactingTurn(state: AppServerTurnState): void {
    state.accept("item/started", compaction, "");
    state.accept("thread/tokenUsage/updated", update([50_000, 10], [50_000, 10]), ""); // the previous usage again
    state.accept("thread/tokenUsage/updated", update([50_100, 20], [100, 10]), ""); // the summary request
    state.accept("thread/tokenUsage/updated", update([50_100, 20], [0, 0]), ""); // the reset history's estimate
    state.accept("item/completed", compaction, "");
    state.accept("thread/tokenUsage/updated", update([50_800, 27], [700, 7]), ""); // the answer
  }
  const own = { inputTokens: 800, outputTokens: 17, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0 };

  it("an update that leaves the thread's running total where it was adds no tokens: the previous usage codex re-sends as it compacts", () => {
    const { state } = turn();
    state.previousTotal = breakdown(50_000, 10);
    compactingTurn(state);
    expect(state.usage()).toEqual(own);
    expect(state.responses).toBe(1);
  });

  it("the running total of another turn's update codex replays on resume is the one the turn starts from", () => {
    const state = new AppServerTurnState(() => undefined);
    state.threadId = THREAD;
    state.accept("thread/tokenUsage/updated", update([50_000, 10], [50_000, 10], OTHER_TURN), "");
    state.setTurnId(TURN);
    expect(state.dropped).toBe(1);
    compactingTurn(state);
    expect(state.usage()).toEqual(own);
  });

  it("with no running total known (a forked thread), a compaction's first update is taken as the re-sent usage", () => {
    const { state } = turn();
    compactingTurn(state);
    expect(state.usage()).toEqual(own);
  });

  it("without a compaction every update counts its last usage, the first one too", () => {
    const { state } = turn();
    state.accept("thread/tokenUsage/updated", update([50_000, 10], [50_000, 10]), "");
    state.accept("thread/tokenUsage/updated", update([50_300, 13], [300, 3]), "");
    expect(state.usage()).toMatchObject({ inputTokens: 50_300, outputTokens: 13 });
    expect(state.responses).toBe(2);
  });
});

describe("AppServerTurnState.started", () => {
  const started = (turnId: string) =>
    JSON.stringify({
      method: "turn/started",
      params: { threadId: THREAD, turn: { id: turnId, status: "inProgress", items: [], error: null } },
    });

  it("is set by this turn's first notification (held ones too, once the turn id is known), not another turn's; whenStarted resolves then", async () => {
    const state = new AppServerTurnState(() => undefined);
    state.threadId = THREAD;
    const waiting = state.whenStarted();
    feed(state, started(TURN)); // before the turn/start answer: held
    expect(state.started).toBe(false);
    state.setTurnId(TURN);
    expect(state.started).toBe(true);
    await waiting;
    state.beginNext();
    expect(state.started).toBe(false);
    state.setTurnId(OTHER_TURN);
    feed(state, started(TURN));
    expect(state.started).toBe(false);
    feed(state, delta("x", "msg_1", { turnId: OTHER_TURN }));
    expect(state.started).toBe(true);
    await state.whenStarted();
  });
});
