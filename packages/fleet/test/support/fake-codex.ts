import { codex } from "@adaptor/codex";
import type { PostgresThreadStore } from "@adaptor/threadstore-postgres";
import { fakeCliEnv, fakeCliPath, type FakeCliStep } from "@adaptor/testkit/fake-cli";

// The testkit's fake CLI playing `codex app-server` for one turn: the handshake (`thread/start`, or
// for a later thread turn `thread/resume` and `thread/turns/list`), `text` as the agent message
// after `sleepMs`, the turn completed, then it waits for stdin to close and exits 0, as codex does.
const line = (value: unknown): FakeCliStep => ({ write: `${JSON.stringify(value)}\n` });
const THREAD_ID = "0192f0a0-0000-7000-8000-000000000001";
const THREAD = { thread: { id: THREAD_ID }, model: "fake-model", modelProvider: "fake" };
const TURN = { id: "u-fake", status: "inProgress", items: [], error: null };

/** The fake's steps for one turn; `resume` for a thread's later turns. */
export function fakeCodexSteps(
  text: string,
  options: { sleepMs?: number; resume?: boolean; ask?: string; elicit?: boolean; exitEarly?: boolean } = {},
): FakeCliStep[] {
  const resume = options.resume === true;
  // `ask`: a command approval request first; `elicit`: an MCP server's form elicitation (a `name`
  // string, required); the driver's answer is echoed on stdout.
  const ask: FakeCliStep[] = options.elicit
    ? [
        line({
          id: 9,
          method: "mcpServer/elicitation/request",
          params: {
            threadId: THREAD_ID,
            turnId: "u-fake",
            serverName: "crm",
            environmentId: null,
            mode: "form",
            _meta: null,
            message: "Who are you?",
            requestedSchema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] },
          },
        }),
        { echoStdinLine: true },
      ]
    : options.ask
      ? [
          line({
            id: 9,
            method: "item/commandExecution/requestApproval",
            params: { threadId: THREAD_ID, turnId: "u-fake", itemId: "c9", command: options.ask, cwd: "/w", startedAtMs: 0 },
          }),
          { echoStdinLine: true },
        ]
      : [];
  return [
    { awaitStdinLine: true },
    line({ id: 1, result: { userAgent: "adaptor/0.171.0 (fake)", codexHome: "/x", platformFamily: "unix", platformOs: "linux" } }),
    { awaitStdinLine: true },
    // A resumed thread: config/read first (what codex gives a new thread, sent with thread/resume).
    ...(resume ? [{ awaitStdinLine: true } as const, line({ id: 2, result: { config: {} } })] : []),
    { awaitStdinLine: true },
    line({ id: resume ? 3 : 2, result: THREAD }),
    ...(resume ? [{ awaitStdinLine: true } as const, line({ id: 4, result: { data: [{ id: "u-fake" }], nextCursor: null } })] : []),
    { awaitStdinLine: true },
    line({ id: resume ? 5 : 3, result: { turn: TURN } }),
    ...ask,
    ...(options.sleepMs ? [{ sleepMs: options.sleepMs }] : []),
    ...(options.exitEarly ? [{ exit: 0 }] : []),
    line({ method: "item/agentMessage/delta", params: { threadId: THREAD_ID, turnId: "u-fake", itemId: "m1", delta: text } }),
    line({ method: "item/completed", params: { threadId: THREAD_ID, turnId: "u-fake", item: { type: "agentMessage", id: "m1", text } } }),
    line({ method: "turn/completed", params: { threadId: THREAD_ID, turn: { ...TURN, status: "completed" } } }),
    { awaitStdinEnd: true },
  ];
}

/** The run options that make the fake play `steps` for one run (merged over the driver's environment). */
export function fakeRun(steps: FakeCliStep[]): { env: Record<string, string> } {
  return { env: fakeCliEnv(steps) };
}

/** A codex driver whose CLI is the fake, answering a first turn with `text` (override per run with {@link fakeRun}). */
export function fakeCodex(text: string, sleepMs = 0) {
  return codex({ command: fakeCliPath, env: fakeCliEnv(fakeCodexSteps(text, { sleepMs })), killGraceMs: 300 });
}

/**
 * The store as the fake CLI's workers see it: without session state (the fake keeps no session
 * files to carry), and with `finalize` through `gate` when given (to hold a commit in a test).
 */
export function fakeCliStoreView(
  store: PostgresThreadStore,
  gate?: (commit: () => Promise<unknown>) => Promise<unknown>,
): PostgresThreadStore {
  return new Proxy(store, {
    get: (target, property) => {
      if (property === "sessionState") return undefined;
      if (property === "finalize" && gate) {
        return (request: Parameters<PostgresThreadStore["finalize"]>[0]) => gate(() => target.finalize(request));
      }
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}
