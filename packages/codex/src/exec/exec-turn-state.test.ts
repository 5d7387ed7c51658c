import { describe, expect, it } from "vitest";
import type { DriverEvent } from "@adaptor/driver";
import { ExecTurnState } from "./exec-turn-state.js";

// The `error` lines below are verbatim from codex 0.171.0 `exec --json` (a closed port; a server
// answering 502 / 500 with stream_max_retries 2; a 429; a server refusing websockets).
const NETWORK = "Reconnecting... waiting for network (Connection failed: error sending request)";
const COUNTED = (n: number) =>
  `Reconnecting... ${n}/2 (unexpected status 502 Bad Gateway: scripted error 502, url: http://127.0.0.1:46395/v1/responses, request id: req_fake_${n * 3})`;
// codex's built-in provider first tries a websocket, 5 times, then falls back to HTTP POST.
const WEBSOCKET = (n: number) =>
  `Reconnecting... ${n}/5 (unexpected status 404 Not Found: 66\r\n{"error":{"message":"Not found: GET /v1/responses"}}\r\n0, url: ws://127.0.0.1:41407/v1/responses, request id: req_fake_${n + 1})`;
const HIGH_DEMAND = "Reconnecting... 1/2 (We’re currently experiencing high demand, which may cause temporary errors.)";
const FINAL_429 = "exceeded retry limit, last status: 429 Too Many Requests, request id: req_fake_1";

function state(maxRetries?: number): { state: ExecTurnState; notices: unknown[] } {
  const notices: unknown[] = [];
  const emit = (event: DriverEvent): void => {
    if (event.type === "notice" && event.kind === "error") notices.push(event.data);
  };
  return { state: new ExecTurnState(emit, maxRetries), notices };
}
const error = (message: string) => ({ type: "error", message }) as const;

describe("ExecTurnState model-call retries (exec error lines carry only a message)", () => {
  it("marks every error line's notice with willRetry, and the counted variant with its attempt", () => {
    const { state: s, notices } = state();
    for (const message of [NETWORK, COUNTED(1), HIGH_DEMAND, FINAL_429]) s.accept(error(message), "");
    expect(notices).toEqual([
      { willRetry: true },
      { willRetry: true, attempt: 1, maxAttempts: 2 },
      { willRetry: true, attempt: 1, maxAttempts: 2 },
      { willRetry: false },
    ]);
  });

  it("counts the retries codex does not bound toward maxRetries; counted ones (codex's own bound) and a final error do not", () => {
    const { state: s } = state(2);
    expect(s.accept(error(NETWORK), "")).toBe(false);
    expect(s.accept(error(FINAL_429), "")).toBe(false);
    for (let n = 1; n <= 5; n++) expect(s.accept(error(WEBSOCKET(n)), "")).toBe(false);
    expect(s.accept(error(COUNTED(1)), "")).toBe(false);
    expect(s.accept(error(COUNTED(2)), "")).toBe(false);
    expect(s.accept(error(NETWORK), "")).toBe(false);
    expect(s.gaveUp).toBeUndefined();
    expect(s.accept(error(NETWORK), "")).toBe(true);
    expect(s.gaveUp).toEqual({ message: NETWORK, retries: 3 });
  });

  it("a counted retry past codex's 5th try counts (a provider's own long stream_max_retries)", () => {
    const { state: s } = state(1);
    const long = (n: number) => `Reconnecting... ${n}/20 (unexpected status 502 Bad Gateway: scripted error 502)`;
    for (let n = 1; n <= 6; n++) expect(s.accept(error(long(n)), "")).toBe(false);
    expect(s.accept(error(long(7)), "")).toBe(true);
    expect(s.gaveUp).toEqual({ message: long(7), retries: 2 });
  });

  it("accepts leading blanks and a single-character ellipsis; not a message that only mentions reconnecting", () => {
    const { state: s, notices } = state();
    for (const message of ["  Reconnecting... 3/5 (x)", "Reconnecting\u2026 waiting for network", "stream error; Reconnecting... later"])
      s.accept(error(message), "");
    expect(notices).toEqual([{ willRetry: true, attempt: 3, maxAttempts: 5 }, { willRetry: true }, { willRetry: false }]);
  });
});

describe("ExecTurnState at the turn's end", () => {
  const command = (id: string, output: string) =>
    ({ id, type: "command_execution", command: "sleep 100", aggregated_output: output, exit_code: null, status: "in_progress" }) as const;

  it("answers every tool call codex left open before the terminal; lines after it change nothing and are counted", () => {
    const events: DriverEvent[] = [];
    const s = new ExecTurnState((event) => events.push(event));
    s.accept({ type: "item.started", item: command("c1", "") }, "");
    s.accept({ type: "item.updated", item: command("c1", "partial\n") }, "");
    s.accept({ type: "item.started", item: command("c2", "") }, "");
    s.agentMessage("m1", "done");
    expect(s.accept({ type: "turn.completed" }, "terminal")).toBe(true);
    s.agentMessage("m2", "late");
    expect(s.accept({ type: "turn.failed", error: { message: "late failure" } }, "")).toBe(false);
    expect(events.filter((e) => e.type === "tool-result")).toEqual([
      { type: "tool-result", id: "c1", name: "shell", output: "partial\n", isError: true },
      { type: "tool-result", id: "c2", name: "shell", output: "still running when the turn ended, ended by the SDK", isError: true },
    ]);
    expect([s.status, s.lastAgentText, s.terminal?.json, s.late]).toEqual(["completed", "done", "terminal", 2]);
  });
});
