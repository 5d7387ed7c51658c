import { execFileSync } from "node:child_process";
import { closeSync, constants, existsSync, openSync, writeSync } from "node:fs";
import { join } from "node:path";
import { BasicTracerProvider, type SpanProcessor } from "@opentelemetry/sdk-trace-base";
import { afterEach, describe, expect, it } from "vitest";
import { MemoryThreadStore } from "@adaptor/threadstore";
import { whenToolResult, whenUserSays, type ScriptRule } from "@adaptor/testkit";
import { Agent, RunError, findError, type AgentOptions, type Thread } from "adaptor";
import { claude } from "@adaptor/claude";
import { harness, type Harness } from "./support.js";

// The `budget` run option on the real claude binary: each limit ends the run as RunError
// `budget_exceeded` naming it, with the partial Result; a thread's turns each get the whole budget.

let h: Harness | undefined;
let agent: Agent | undefined;
afterEach(async () => {
  await agent?.close();
  await h?.close();
  h = agent = undefined;
});

/** The work dir of the current harness (rules build absolute paths from it when they answer). */
let dir = "";
const write = (name: string, content: string) => () => ({ toolUse: { name: "Write", input: { file_path: join(dir, name), content } } });

async function setUp(rules: ScriptRule[], options: AgentOptions = {}): Promise<Agent> {
  h = await harness(rules);
  dir = h.env.workDir;
  agent = new Agent(claude({ cwd: h.env.workDir, env: h.env.env, inheritEnv: false, model: "claude-sonnet-4-5" }), {
    threadStore: new MemoryThreadStore(),
    policy: { approvals: { permission: "auto_approve" } },
    ...options,
  });
  return agent;
}

/**
 * A span processor that blocks the host's event loop as the `nth` tool-call span starts, until
 * `done()` holds (checked every 50 ms, for at most 5 s: a CLI that runs the call unasked does so at
 * once, one that waits on the host never does).
 */
function holdAtToolCall(nth: number, done: () => boolean): SpanProcessor {
  let seen = 0;
  const clock = new Int32Array(new SharedArrayBuffer(4));
  return {
    onStart(span) {
      if (span.name !== "adaptor.tool_call" || ++seen !== nth) return;
      for (let waited = 0; waited < 5000 && !done(); waited += 50) Atomics.wait(clock, 0, 0, 50);
    },
    onEnd: () => undefined,
    forceFlush: async () => undefined,
    shutdown: async () => undefined,
  };
}

function budgetError(error: unknown): RunError {
  const found = findError(error, RunError);
  if (!found) throw new Error(`expected a RunError, got ${String(error)}`);
  expect(found.reason).toBe("budget_exceeded");
  return found;
}

/** Runs `count` turns of `prompt` on `thread` with `maxTurns`, each answering `text`; whether each reused the parked process. */
async function turnsReused(thread: Thread, prompt: string, maxTurns: number, count: number, text: string): Promise<boolean[]> {
  const reused: boolean[] = [];
  for (let turn = 0; turn < count; turn++) {
    const stream = thread.stream(prompt, { budget: { maxTurns } });
    let wasReused = false;
    for await (const event of stream) if (event.type === "notice" && event.message === "process reused") wasReused = true;
    expect((await stream.result()).text).toBe(text);
    reused.push(wasReused);
  }
  return reused;
}

describe("run budgets (real binary)", { timeout: 180_000 }, () => {
  it("maxToolCalls: the second tool call ends the run before it runs; the partial Result keeps the streamed text", async () => {
    const a = await setUp([
      { when: whenUserSays("two writes"), reply: () => ({ text: "writing the first file. ", ...write("first.txt", "one\n")() }) },
      { when: whenToolResult("Write"), reply: write("second.txt", "two\n") },
    ]);
    const err = budgetError(await a.run("two writes", { budget: { maxToolCalls: 1 } }).catch((e: unknown) => e));
    expect(err.details).toMatchObject({ budget: "maxToolCalls", limit: 1, used: 2 });
    expect(err.result.text).toContain("writing the first file.");
    expect(existsSync(join(dir, "first.txt"))).toBe(true);
    expect(existsSync(join(dir, "second.txt"))).toBe(false);
  });

  it("maxToolCalls under auto_approve: a command the CLI runs unasked never runs over the limit, however late the host reads the call, and no further model request goes out (a thread's process parked without the limit is not reused)", async () => {
    // `cat` of a file in the working directory is a read the CLI runs without asking; the file is a
    // FIFO, so the test sees whether the command ran: a writer opens it only while `cat` reads it.
    const fifo = (): string => join(dir, "witness");
    let ran = false;
    const reading = (): boolean => {
      try {
        const fd = openSync(fifo(), constants.O_WRONLY | constants.O_NONBLOCK);
        writeSync(fd, "two\n");
        closeSync(fd);
        return (ran = true);
      } catch {
        return false; // ENXIO: no reader
      }
    };
    // A host busy when the over-limit call is reported: its tracer holds the event loop at that
    // call's span until the command runs (a CLI that does not wait on the SDK runs it meanwhile).
    const provider = new BasicTracerProvider({ spanProcessors: [holdAtToolCall(2, reading)] });
    const a = await setUp(
      [
        { when: whenUserSays("just answer"), reply: { text: "answered" } },
        { when: whenUserSays("echo then cat"), reply: { toolUse: { name: "Bash", input: { command: "echo one" } } } },
        { when: whenToolResult("Bash", /^one$/), reply: () => ({ toolUse: { name: "Bash", input: { command: `cat ${fifo()}` } } }) },
        { when: whenToolResult("Bash"), reply: { text: "read it" } },
      ],
      { telemetry: { tracer: provider.getTracer("adaptor") } },
    );
    execFileSync("mkfifo", [fifo()]);
    // The thread's first turn, with a budget but no tool-call limit, parks its process.
    const thread = a.thread("budgeted");
    expect((await thread.run("just answer", { budget: { maxTurns: 5 } })).text).toBe("answered");
    const err = budgetError(await thread.run("echo then cat", { budget: { maxTurns: 5, maxToolCalls: 1 } }).catch((e: unknown) => e));
    expect(err.details).toMatchObject({ budget: "maxToolCalls", limit: 1, used: 2 });
    // The run returns once the CLI has exited: nothing it could still do is left.
    expect(ran || reading()).toBe(false);
    // The only model request after a tool ran carries the first call's result.
    expect(h!.server.requests.flatMap((r) => (r.view.lastToolResult ? [r.view.lastToolResult.content] : []))).toEqual(["one"]);
    expect(err.result.numTurns).toBe(2);
  });

  it("maxTurns: a run that needs a second model response ends before it with the streamed text; a thread's later turn gets the whole budget again", async () => {
    const a = await setUp([
      { when: whenUserSays("write then answer"), reply: () => ({ text: "writing it. ", ...write("turns.txt", "x\n")() }) },
      { when: whenToolResult("Write"), reply: { text: "written" } },
      { when: whenUserSays("just answer"), reply: { text: "answered" } },
    ]);
    const err = budgetError(await a.run("write then answer", { budget: { maxTurns: 1 } }).catch((e: unknown) => e));
    expect(err.details).toMatchObject({ budget: "maxTurns", limit: 1, used: 1 });
    // The CLI's num_turns says 2 here: numTurns is the model responses, as maxTurns counts them.
    expect(err.result.numTurns).toBe(1);
    expect(err.result.text).toBe("writing it. ");
    expect(h!.server.requests.filter((r) => r.view.lastToolResult?.toolName === "Write")).toEqual([]);
    // One response per turn, twice on one reused process: the CLI's limit counts each turn anew.
    expect(await turnsReused(a.thread("budgeted"), "just answer", 1, 2, "answered")).toEqual([false, true]);
  });

  it("maxCostUsd: a run whose cost passes the limit ends as budget_exceeded with its cost and streamed text in the partial Result", async () => {
    const a = await setUp([
      { when: whenUserSays("expensive"), reply: { text: "costly", usage: { input_tokens: 100_000, output_tokens: 10 } } },
    ]);
    const err = budgetError(await a.run("expensive", { budget: { maxCostUsd: 0.01 } }).catch((e: unknown) => e));
    expect(err.details).toMatchObject({ budget: "maxCostUsd", limit: 0.01, used: err.result.costUsd });
    expect(err.result.costUsd).toBeGreaterThan(0.01);
    expect(err.result.text).toBe("costly");
  });

  it("maxCostUsd on a thread: each turn's limit counts that turn's cost alone, so turns under the limit pass and one over it still stops", async () => {
    const usage = { input_tokens: 100_000, output_tokens: 10_000 };
    const a = await setUp([
      { when: whenUserSays("costly turn"), reply: { text: "paid", usage } },
      { when: whenUserSays("pricier turn"), reply: { text: "overpaid", usage: { input_tokens: 400_000, output_tokens: 10_000 } } },
    ]);
    const thread = a.thread("budgeted-cost");
    const one = (await thread.run("costly turn")).costUsd!;
    expect(one).toBeGreaterThan(0);
    const limit = one * 1.5;
    const costs: number[] = [];
    for (let turn = 0; turn < 3; turn++) costs.push((await thread.run("costly turn", { budget: { maxCostUsd: limit } })).costUsd!);
    expect(costs.map((cost) => cost.toFixed(6))).toEqual(Array(3).fill(one.toFixed(6)));
    // The CLI's own mid-turn stop still measures this turn: a turn costing more than the limit ends.
    const err = budgetError(await thread.run("pricier turn", { budget: { maxCostUsd: limit } }).catch((e: unknown) => e));
    expect(err.details).toMatchObject({ budget: "maxCostUsd", limit });
    expect((err.details as { used: number }).used).toBeGreaterThan(limit);
    // The thread goes on after the failed turn.
    expect((await thread.run("costly turn", { budget: { maxCostUsd: limit } })).text).toBe("paid");
  });

  it("maxTurns on a thread: three turns of two responses each pass a limit of two on the reused process", async () => {
    const a = await setUp([
      { when: whenUserSays("write and answer"), reply: write("turns.txt", "x\n") },
      { when: whenToolResult("Write"), reply: { text: "written" } },
    ]);
    expect(await turnsReused(a.thread("budgeted-turns"), "write and answer", 2, 3, "written")).toEqual([false, true, true]);
  });
});
