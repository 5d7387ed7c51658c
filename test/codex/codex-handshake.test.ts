import { describe, expect, it } from "vitest";
import { fakeCliEnv, fakeCliPath, type FakeCliStep } from "@adaptor/testkit/fake-cli";
import { Agent } from "adaptor";
import { codex } from "@adaptor/codex";

// The fake CLI plays codex app-server and answers `initialize` only once it has read the thread
// request too: a driver that waits for the handshake's answer before opening the thread never gets
// one (its reply timeout fails the run).

const line = (value: unknown): string => `${JSON.stringify(value)}\n`;
const initializeAnswer = line({ id: 1, result: { userAgent: "fake", codexHome: "/x", platformFamily: "unix", platformOs: "linux" } });
const threadAnswer = line({ id: 2, result: { thread: { id: "t-fake" }, model: "fake-model", modelProvider: "fake" } });
const pipelined: FakeCliStep[] = [
  { echoStdinLine: true }, // initialize
  { echoStdinLine: true }, // initialized
  { echoStdinLine: true }, // thread/start, written before initialize was answered
  { write: initializeAnswer + threadAnswer },
];

describe("codex app-server handshake (fake CLI)", () => {
  it("a new process gets its thread request right behind initialize, before codex answered it", async () => {
    const steps: FakeCliStep[] = [
      ...pipelined,
      { awaitStdinLine: true }, // turn/start
      { write: line({ id: 3, result: { turn: { id: "u-fake", status: "inProgress", items: [], error: null } } }) },
      {
        write: line({
          method: "item/completed",
          params: { threadId: "t-fake", turnId: "u-fake", item: { type: "agentMessage", id: "m-1", text: "done" } },
        }),
      },
      {
        write: line({
          method: "turn/completed",
          params: { threadId: "t-fake", turn: { id: "u-fake", status: "completed", items: [], error: null } },
        }),
      },
      { awaitStdinEnd: true }, // codex exits 0 when its stdin closes
    ];
    const agent = new Agent(codex({ command: fakeCliPath, env: fakeCliEnv(steps), killGraceMs: 300, replyTimeoutMs: 5_000 }));
    try {
      const stream = agent.stream("go");
      const stdout: string[] = [];
      for await (const event of stream) if (event.type === "process" && event.kind === "stdout") stdout.push(event.text ?? "");
      const result = await stream.result();
      expect(result.text).toBe("done");
      // The fake echoed what it read before answering: the handshake, then the thread request.
      const methods = stdout.map((text) => (JSON.parse(text) as { line: { method: string } }).line.method);
      expect(methods).toEqual(["initialize", "initialized", "thread/start"]);
    } finally {
      await agent.close();
    }
  });

  it("a failed initialize fails the run with codex's answer, not the thread request's", async () => {
    const steps: FakeCliStep[] = [
      { awaitStdinLine: true },
      { awaitStdinLine: true },
      { awaitStdinLine: true },
      {
        write:
          line({ id: 1, error: { code: -32600, message: "initialize refused by the fake" } }) +
          line({ id: 2, error: { code: -32600, message: "Not initialized" } }),
      },
      { awaitStdinLine: true },
    ];
    const agent = new Agent(codex({ command: fakeCliPath, env: fakeCliEnv(steps), killGraceMs: 300, replyTimeoutMs: 5_000 }));
    try {
      const error = await agent.run("go").then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(String(error)).toContain("initialize refused by the fake");
      expect(String(error)).not.toContain("Not initialized");
    } finally {
      await agent.close();
    }
  });
});
