import { describe, expect, it } from "vitest";
import { fakeCliEnv, fakeCliPath, type FakeCliStep } from "@adaptor/testkit/fake-cli";
import { Agent, DriverError, ErrAgentFailed, RunError, findError, isError, type AgentEvent } from "adaptor";
import { claude } from "@adaptor/claude";
import { alive, spawnedPid } from "./support.js";

// Fault injection: a fake CLI replays exact stream-json bytes in place of claude. The real-binary
// behaviour is pinned in claude-driver.test.ts; these pin what the real binary will not do on cue.

const init = JSON.stringify({ type: "system", subtype: "init", session_id: "s-1", model: "fake-model" }) + "\n";
const result = (text: string): string =>
  JSON.stringify({
    type: "result",
    subtype: "success",
    is_error: false,
    result: text,
    session_id: "s-1",
    total_cost_usd: 0.5,
    usage: { input_tokens: 0, output_tokens: 0 },
  }) + "\n";

function fakeAgent(steps: FakeCliStep[], killGraceMs = 300): Agent {
  return new Agent(claude({ command: fakeCliPath, env: fakeCliEnv(steps), killGraceMs }));
}

async function collect(stream: AsyncIterable<AgentEvent>): Promise<AgentEvent[]> {
  const events: AgentEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

describe("claude driver faults (fake CLI)", () => {
  it("exit without a result line is an agent failure carrying the stderr tail", async () => {
    const agent = fakeAgent([{ awaitStdinLine: true }, { write: init }, { stderr: "fatal: model server vanished\n" }, { exit: 3 }]);
    const err = await agent.run("hi").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RunError);
    expect(isError(err, ErrAgentFailed)).toBe(true);
    const runError = err as RunError;
    expect(runError.reason).toBe("agent_error");
    expect(runError.message).toContain("fatal: model server vanished");
    expect(runError.details).toMatchObject({ exitCode: 3 });
    expect(runError.result.raw().stderr).toContain("fatal: model server vanished");
    await agent.close();
  });

  it("a credential the run hands the CLI reads [redacted] in its stderr process events, also split over two writes, and in result.raw().stderr", async () => {
    const secret = "fakeKey-QWERTY1234567890";
    const steps: FakeCliStep[] = [
      { awaitStdinLine: true },
      { write: init },
      // The second write comes after the first was flushed to the pipe: the value may arrive in two chunks.
      { stderr: `debug: calling with key ${secret.slice(0, 11)}` },
      { stderr: `${secret.slice(11)} now\n` },
      { write: result("ok") },
    ];
    const agent = new Agent(
      claude({ command: fakeCliPath, env: { ...fakeCliEnv(steps), FAKE_PROVIDER_API_KEY: secret }, killGraceMs: 300 }),
    );
    const stream = agent.stream("hi");
    const events = await collect(stream);
    const res = await stream.result();
    const stderr = events.flatMap((e) => (e.type === "process" && e.kind === "stderr" ? [e.text ?? ""] : [])).join("");
    // One marker when the rest came before the held line was handed on, two when after (cut there).
    expect(stderr).toMatch(/^debug: calling with key (\[redacted\]){1,2} now\n$/);
    expect(res.raw().stderr).toBe("debug: calling with key [redacted] now\n");
    expect(JSON.stringify(events)).not.toContain(secret.slice(0, 8));
    expect(JSON.stringify(events)).not.toContain(secret.slice(-8));
    await agent.close();
  });

  it("a CLI killed by a signal the SDK did not send is an agent failure naming the signal", async () => {
    const agent = fakeAgent([{ awaitStdinLine: true }, { write: init }, { hang: true }]);
    const stream = agent.stream("hi");
    for await (const event of stream) {
      // Kill the CLI from outside once it runs, as the OOM killer or an operator would.
      if (event.type === "process" && event.kind === "spawn" && event.pid !== undefined) process.kill(event.pid, "SIGKILL");
    }
    const err = await stream.result().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RunError);
    expect(isError(err, ErrAgentFailed)).toBe(true);
    const runError = err as RunError;
    expect(runError.reason).toBe("agent_error");
    expect(runError.message).toContain("killed by SIGKILL, a signal the SDK did not send");
    expect(runError.details).toMatchObject({ exitSignal: "SIGKILL" });
    await agent.close();
  });

  it("a second result line is ignored: the first terminal decides", async () => {
    const agent = fakeAgent([{ awaitStdinLine: true }, { write: init }, { write: result("first") }, { write: result("second") }]);
    const stream = agent.stream("hi");
    const events = await collect(stream);
    const res = await stream.result();
    expect(res.text).toBe("first");
    expect(JSON.parse(res.raw().terminal?.json ?? "{}")).toMatchObject({ result: "first" });
    expect(res.usage).toEqual({ inputTokens: 0, outputTokens: 0 }); // zeros reported stay zeros
    expect(res.costUsd).toBe(0.5);
    expect(events.some((e) => e.type === "notice" && e.message === "second result line ignored")).toBe(true);
    await agent.close();
  });

  it("a non-JSON stdout line becomes a process event and the run still succeeds", async () => {
    const agent = fakeAgent([{ awaitStdinLine: true }, { write: init }, { write: "warning: not json\r\n" }, { write: result("ok") }]);
    const stream = agent.stream("hi");
    const events = await collect(stream);
    expect((await stream.result()).text).toBe("ok");
    expect(events).toContainEqual(expect.objectContaining({ type: "process", kind: "stdout", text: "warning: not json" }));
    await agent.close();
  });

  it("a CLI that ignores the interrupt and SIGTERM is SIGKILLed: FORCE_KILLED verdict, process gone", async () => {
    const agent = fakeAgent([{ ignoreSigterm: true }, { awaitStdinLine: true }, { write: init }, { hang: true }], 200);
    const stream = agent.stream("hi");
    const events: AgentEvent[] = [];
    for await (const event of stream) {
      events.push(event);
      if (event.type === "notice" && event.message === "init") stream.cancel();
    }
    const err = await stream.result().catch((e: unknown) => e);
    expect(findError(err, DriverError)?.code).toBe("FORCE_KILLED");
    expect((err as Error).cause).toMatchObject({ name: "AbortError" });
    expect(alive(spawnedPid(events)!)).toBe(false);
    await agent.close();
  });

  it("a missing executable is [NOT_FOUND] before the run starts", async () => {
    const agent = new Agent(claude({ command: "/nonexistent/claude-xyz" }));
    const stream = agent.stream("hi");
    const events = await collect(stream);
    const err = await stream.result().catch((e: unknown) => e);
    expect(findError(err, DriverError)?.code).toBe("NOT_FOUND");
    expect((err as Error).message).toMatch(/^\[NOT_FOUND\] spawn: claude \(/);
    expect(events.some((e) => e.type === "process")).toBe(false);
    await agent.close();
  });

  it("extraArgs that override an owned flag are InvalidDriverConfigError before any spawn", async () => {
    const agent = new Agent(claude({ command: fakeCliPath, extraArgs: ["--output-format=json"] }));
    const stream = agent.stream("hi");
    const events = await collect(stream);
    const err = await stream.result().catch((e: unknown) => e);
    expect((err as Error).name).toBe("InvalidDriverConfigError");
    expect(events.some((e) => e.type === "process")).toBe(false);
    await agent.close();
  });
});
