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

/** Runs `prompt` on a fresh codex agent over `transport`: its tool-result events and its Result. */
async function runShell(transport: "app-server" | "exec", prompt: string) {
  h = await codexHarness();
  agent = new Agent(codex({ cwd: h.env.workDir, env: h.env.env, inheritEnv: false, killGraceMs: 1000, transport }));
  const stream = agent.stream(prompt, { policy: { sandbox: "unrestricted" } });
  const results = [];
  for await (const event of stream) if (event.type === "tool-result") results.push(event);
  return { results, result: await stream.result() };
}

describe.each(["app-server", "exec"] as const)("command exit code over %s (real binary)", (transport) => {
  it("a command's tool-result and transcript item carry its exit code", { timeout: 180_000 }, async () => {
    const { results, result: failed } = await runShell(transport, "SHELL_CMD sh -c 'echo oops; exit 3'");
    expect(results).toHaveLength(1);
    expect(results[0]).toMatchObject({ name: "shell", output: "oops\n", isError: true, exitCode: 3 });
    expect(failed.transcript().find((item) => item.kind === "tool-result")).toMatchObject({ isError: true, exitCode: 3 });

    const ok = await agent!.run("SHELL_CMD echo fine", { policy: { sandbox: "unrestricted" } });
    expect(ok.transcript().find((item) => item.kind === "tool-result")).toMatchObject({ text: "fine\n", isError: false, exitCode: 0 });
  });

  it("a command ended by a signal carries the shell's 128 + signal number as its exit code", { timeout: 180_000 }, async () => {
    const { results, result } = await runShell(transport, "SHELL_CMD sh -c 'kill -9 $$'");
    expect(results).toHaveLength(1);
    expect(results[0]).toMatchObject({ name: "shell", isError: true, exitCode: 137 }); // SIGKILL is signal 9
    expect(result.transcript().find((item) => item.kind === "tool-result")).toMatchObject({ isError: true, exitCode: 137 });
  });
});
