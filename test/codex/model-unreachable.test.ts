import { afterEach, describe, expect, it } from "vitest";
import { readFile, writeFile } from "node:fs/promises";
import { codexTestEnv, refusedLocalPort, startOpenAIServer, type CodexTestEnv } from "@adaptor/testkit";
import { Agent, RunError, type AgentEvent } from "adaptor";
import { codex, type CodexConfig } from "@adaptor/codex";
import { alive, drainRetries } from "./support.js";

// A model server nobody listens on: codex 0.171.0 waits for it without end (its retry settings do
// not bound this wait), announcing each retry; the driver ends the turn after `maxModelRetries`.

let env: CodexTestEnv | undefined;
let agent: Agent | undefined;
afterEach(async () => {
  await agent?.close();
  await env?.cleanup();
  agent = env = undefined;
});

async function runAgainstClosedPort(config: CodexConfig): Promise<{ error: unknown; retries: number; pid: number | undefined }> {
  env = await codexTestEnv({ baseUrl: `http://127.0.0.1:${await refusedLocalPort()}/v1` });
  agent = new Agent(codex({ cwd: env.workDir, env: env.env, inheritEnv: false, killGraceMs: 1000, ...config }));
  const { error, retries, pid } = await drainRetries(agent.stream("hello"));
  return { error, retries: retries.length, pid };
}

describe("codex with its model server unreachable", () => {
  it(
    "ends the turn as agent_error naming the connection failure after maxModelRetries retries, process ended",
    { timeout: 120_000 },
    async () => {
      // maxModelRetries 1: the second retry announcement (about 5 s in, codex's first backoff) ends the turn.
      const { error, retries, pid } = await runAgainstClosedPort({ maxModelRetries: 1 });
      expect(error).toBeInstanceOf(RunError);
      const runError = error as RunError;
      expect(runError.reason).toBe("agent_error");
      expect(runError.message).toMatch(/model unreachable/);
      expect(runError.message).toMatch(/after 2 retries/);
      // codex logs the cause on stderr: "Connection failed: error sending request".
      expect(runError.message).toMatch(/Connection failed/);
      expect(retries).toBe(2);
      expect(pid).toBeTypeOf("number");
      expect(alive(pid!)).toBe(false);
    },
  );

  it("with maxModelRetries 0 ends the turn at codex's first retry announcement", { timeout: 120_000 }, async () => {
    const { error, retries } = await runAgainstClosedPort({ maxModelRetries: 0 });
    expect((error as RunError).reason).toBe("agent_error");
    expect((error as RunError).message).toMatch(/after 1 retry$/);
    expect(retries).toBe(1);
  });

  it("by default ends the turn at codex's fourth retry announcement (about 35 s in with codex 0.171.0)", { timeout: 150_000 }, async () => {
    const { error, retries, pid } = await runAgainstClosedPort({});
    expect((error as RunError).reason).toBe("agent_error");
    expect((error as RunError).message).toMatch(/^model unreachable: .*after 4 retries$/);
    expect(retries).toBe(4);
    expect(alive(pid!)).toBe(false);
  });

  it(
    "exec transport: ends the turn as agent_error naming the connection failure after maxModelRetries retries",
    { timeout: 120_000 },
    async () => {
      const { error, retries, pid } = await runAgainstClosedPort({ transport: "exec", maxModelRetries: 1 });
      expect(error).toBeInstanceOf(RunError);
      expect((error as RunError).reason).toBe("agent_error");
      expect((error as RunError).message).toMatch(/^model unreachable: Reconnecting.*Connection failed.*after 2 retries$/);
      // exec's error lines carry only a message: the driver marks a retry's notice from its wording.
      expect(retries).toBe(2);
      expect(alive(pid!)).toBe(false);
    },
  );

  it(
    "exec transport: a server answering 502 with stream_max_retries 2: codex's counted retries are marked with their attempt, then its own final error fails the turn",
    { timeout: 120_000 },
    async () => {
      const server = await startOpenAIServer({ rules: [] });
      try {
        env = await codexTestEnv({ server });
        const toml = await readFile(env.configPath, "utf8");
        await writeFile(env.configPath, toml.replace("stream_max_retries = 0", "stream_max_retries = 2"));
        agent = new Agent(codex({ cwd: env.workDir, env: env.env, inheritEnv: false, transport: "exec" }));
        const stream = agent.stream("HTTP_ERROR 502");
        const errors: unknown[] = [];
        for await (const event of stream as AsyncIterable<AgentEvent>)
          if (event.type === "notice" && event.kind === "error") errors.push(event.data);
        const error = await stream.result().then(
          () => undefined,
          (err: unknown) => err,
        );
        expect(errors).toEqual([
          { willRetry: true, attempt: 1, maxAttempts: 2 },
          { willRetry: true, attempt: 2, maxAttempts: 2 },
          { willRetry: false },
        ]);
        expect((error as RunError).reason).toBe("agent_error");
        expect((error as RunError).message).toMatch(/unexpected status 502 Bad Gateway: scripted error 502/);
      } finally {
        await server.close();
      }
    },
  );

  for (const transport of ["app-server", "exec"] as const) {
    it(
      `${transport}: a provider's own large stream_max_retries (20) against a failing server: codex's counted tries past the 5th count toward maxModelRetries (its doubling backoff would run for hours)`,
      { timeout: 120_000 },
      async () => {
        const server = await startOpenAIServer({ rules: [] });
        try {
          env = await codexTestEnv({ server });
          const toml = await readFile(env.configPath, "utf8");
          await writeFile(env.configPath, toml.replace("stream_max_retries = 0", "stream_max_retries = 20"));
          agent = new Agent(codex({ cwd: env.workDir, env: env.env, inheritEnv: false, killGraceMs: 1000, transport, maxModelRetries: 0 }));
          // Far past the sixth try (about 7 s in); the 8th comes about 28 s in, the 20th after hours.
          const { error, retries, pid } = await drainRetries(agent.stream("HTTP_ERROR 502", { signal: AbortSignal.timeout(60_000) }));
          expect(error).toBeInstanceOf(RunError);
          expect((error as RunError).reason).toBe("agent_error");
          expect((error as RunError).message).toMatch(/^model unreachable: Reconnecting\.\.\. 6\/20.*after 1 retry$/);
          expect(retries.map((message) => /^Reconnecting\.\.\. (\d+)\/20/.exec(message)?.[1])).toEqual(["1", "2", "3", "4", "5", "6"]);
          expect(alive(pid!)).toBe(false);
        } finally {
          await server.close();
        }
      },
    );
  }
});
