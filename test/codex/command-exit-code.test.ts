import { afterEach, describe, expect, it } from "vitest";
import { Agent } from "adaptor";
import { codex } from "@adaptor/codex";
import { codexHarness, type CodexHarness } from "./support.js";

// A command's exit code on the real codex binary, both transports: the `tool-result` event and the
// transcript's tool-result item carry codex's own `exitCode` / `exit_code`.

let h: CodexHarness | undefined;
let agent: Agent | undefined;
afterEach(async () => {
  await agent?.close();
  await h?.close();
  h = agent = undefined;
});

describe.each(["app-server", "exec"] as const)("command exit code over %s (real binary)", (transport) => {
  it("a command's tool-result and transcript item carry its exit code", { timeout: 180_000 }, async () => {
    h = await codexHarness();
    agent = new Agent(codex({ cwd: h.env.workDir, env: h.env.env, inheritEnv: false, killGraceMs: 1000, transport }));
    const failing = agent.stream("SHELL_CMD sh -c 'echo oops; exit 3'", { policy: { sandbox: "unrestricted" } });
    const results = [];
    for await (const event of failing) if (event.type === "tool-result") results.push(event);
    const failed = await failing.result();
    expect(results).toHaveLength(1);
    expect(results[0]).toMatchObject({ name: "shell", output: "oops\n", isError: true, exitCode: 3 });
    expect(failed.transcript().find((item) => item.kind === "tool-result")).toMatchObject({ isError: true, exitCode: 3 });

    const ok = await agent.run("SHELL_CMD echo fine", { policy: { sandbox: "unrestricted" } });
    expect(ok.transcript().find((item) => item.kind === "tool-result")).toMatchObject({ text: "fine\n", isError: false, exitCode: 0 });
  });

  it("a command ended by a signal carries the shell's 128 + signal number as its exit code", { timeout: 180_000 }, async () => {
    h = await codexHarness();
    agent = new Agent(codex({ cwd: h.env.workDir, env: h.env.env, inheritEnv: false, killGraceMs: 1000, transport }));
    const killed = agent.stream("SHELL_CMD sh -c 'kill -9 $$'", { policy: { sandbox: "unrestricted" } });
    const results = [];
    for await (const event of killed) if (event.type === "tool-result") results.push(event);
    const result = await killed.result();
    expect(results).toHaveLength(1);
    expect(results[0]).toMatchObject({ name: "shell", isError: true, exitCode: 137 }); // SIGKILL is signal 9
    expect(result.transcript().find((item) => item.kind === "tool-result")).toMatchObject({ isError: true, exitCode: 137 });
  });
});
