import { describe, expect, it } from "vitest";
import type { DriverSink, TurnControl } from "@adaptor/driver";
import { createRecordingSink } from "@adaptor/driver/testing";
import { fakeCliEnv, fakeCliPath, type FakeCliStep } from "@adaptor/testkit/fake-cli";
import { codex } from "../src/index.js";
import { FAKE_APP_SERVER_HANDSHAKE, fakeLine } from "./support.js";

// Fault injection (the testkit's fake CLI plays codex app-server): a host that answers a request
// and interrupts the turn at once. The deny's reason reaches the model first (thread/inject_items,
// which the fake answers only once it read it), so the answer to codex comes after a round trip:
// the interrupt must still wait for it, or codex ends the turn with the request unanswered.

const TURN = { threadId: "t-fake", turnId: "u-fake" };

const REQUESTS = {
  "a question (item/tool/requestUserInput)": {
    id: "srv-q",
    method: "item/tool/requestUserInput",
    params: {
      ...TURN,
      itemId: "q1",
      questions: [{ id: "pick", header: "Pick", question: "Which one?", isOther: false, isSecret: false, options: null }],
    },
  },
  "an MCP tool call's elicitation (mcpServer/elicitation/request)": {
    id: "srv-e",
    method: "mcpServer/elicitation/request",
    params: {
      ...TURN,
      serverName: "crm",
      environmentId: null,
      mode: "form",
      message: "Allow the crm tool lookup?",
      requestedSchema: { type: "object", properties: {} },
      _meta: { codex_approval_kind: "mcp_tool_call", tool_name: "lookup", tool_params: { q: "x" } },
    },
  },
} as const;

/** The methods (or, for an answer, `answer <id>`) of the driver's lines, in the order the fake read them. */
function linesRead(stdout: readonly string[]): string[] {
  return stdout
    .map((text) => JSON.parse(text) as { type: string; line: { method?: string; id?: unknown } })
    .filter((e) => e.type === "echo")
    .map((e) => e.line.method ?? `answer ${String(e.line.id)}`);
}

describe("codex app-server: an interrupt waits for the answers the host already gave (fake CLI)", () => {
  it.each(Object.entries(REQUESTS))("%s denied, then interrupted: codex gets the answer before turn/interrupt", async (_name, request) => {
    const steps: FakeCliStep[] = [
      ...FAKE_APP_SERVER_HANDSHAKE,
      fakeLine({
        method: "turn/started",
        params: { threadId: "t-fake", turn: { id: "u-fake", status: "inProgress", items: [], error: null } },
      }),
      fakeLine(request),
      { echoStdinLine: true }, // thread/inject_items, the deny's reason
      fakeLine({ id: 4, result: {} }),
      { echoStdinLine: true },
      { echoStdinLine: true },
      fakeLine({ id: 5, result: {} }), // turn/interrupt
      fakeLine({
        method: "turn/completed",
        params: { threadId: "t-fake", turn: { id: "u-fake", status: "interrupted", items: [], error: null } },
      }),
      { awaitStdinEnd: true },
    ];
    const driver = codex({ command: fakeCliPath, env: fakeCliEnv(steps), killGraceMs: 300 });
    let control: TurnControl | undefined;
    let interrupted: Promise<boolean | void> | undefined;
    const recording = createRecordingSink({
      onApproval: () => {
        // The host decides, then interrupts right after (once its decision is handed back).
        void Promise.resolve().then(() => (interrupted = control?.interrupt?.()));
        return { outcome: "deny", reason: "not now" };
      },
    });
    const sink: DriverSink = {
      ...recording.sink,
      attachControl: (attached) => {
        control = attached;
        return () => (control = undefined);
      },
    };
    const response = await driver.run({ runId: "r1", prompt: "hi" }, sink, new AbortController().signal);
    recording.seal();
    expect(recording.asks).toHaveLength(1);
    expect(await interrupted).toBe(true);
    expect(response.interrupted).toBe(true);
    const stdout = recording
      .ofType("process")
      .filter((p) => p.kind === "stdout")
      .map((p) => p.text ?? "");
    expect(linesRead(stdout)).toEqual(["thread/inject_items", `answer ${request.id}`, "turn/interrupt"]);
  });
});
