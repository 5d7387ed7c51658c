import { afterEach, describe, expect, it } from "vitest";
import { whenPromptSays, type OpenAIServer } from "@adaptor/testkit";
import { Agent, InvalidOptionError } from "adaptor";
import { MemoryThreadStore } from "@adaptor/threadstore";
import { codex } from "@adaptor/codex";
import { codexHarness, type CodexHarness } from "./support.js";

// The `effort` run option on the real codex binary, both transports: the reasoning effort the
// scripted server receives in the Responses request (`reasoning.effort`).

let h: CodexHarness | undefined;
let agent: Agent | undefined;
afterEach(async () => {
  await agent?.close();
  await h?.close();
  h = agent = undefined;
});

/** The `reasoning` field of the request whose prompt was `marker`. */
function reasoningFor(server: OpenAIServer, marker: string): unknown {
  const request = server.requests.find((r) => r.view.lastUserText.includes(marker));
  if (!request) throw new Error(`no request carried ${marker}`);
  return (request.body as { reasoning?: unknown }).reasoning;
}

describe.each(["app-server", "exec"] as const)("reasoning effort over %s (real binary)", (transport) => {
  it("each run's effort reaches the model request as reasoning.effort", { timeout: 180_000 }, async () => {
    h = await codexHarness({
      rules: [
        { when: whenPromptSays("effort-low"), reply: { text: "low" } },
        { when: whenPromptSays("effort-high"), reply: { text: "high" } },
        { when: whenPromptSays("effort-none"), reply: { text: "none" } },
      ],
    });
    agent = new Agent(codex({ cwd: h.env.workDir, env: h.env.env, inheritEnv: false, killGraceMs: 1000, transport }));
    await agent.run("effort-low", { effort: "low" });
    await agent.run("effort-high", { effort: "high" });
    await agent.run("effort-none");
    expect(reasoningFor(h.server, "effort-low")).toMatchObject({ effort: "low" });
    expect(reasoningFor(h.server, "effort-high")).toMatchObject({ effort: "high" });
    // Without the option, codex's own default for the model.
    expect(reasoningFor(h.server, "effort-none")).toMatchObject({ effort: "medium" });
  });

  it("xhigh, per run and as the Agent's option, reaches the model request", { timeout: 180_000 }, async () => {
    h = await codexHarness({
      rules: [
        { when: whenPromptSays("effort-xhigh-run"), reply: { text: "run" } },
        { when: whenPromptSays("effort-xhigh-agent"), reply: { text: "agent" } },
      ],
    });
    const config = { cwd: h.env.workDir, env: h.env.env, inheritEnv: false, killGraceMs: 1000, transport } as const;
    agent = new Agent(codex(config));
    await agent.run("effort-xhigh-run", { effort: "xhigh" });
    await agent.close();
    agent = new Agent(codex(config), { effort: "xhigh" });
    await agent.run("effort-xhigh-agent");
    expect(reasoningFor(h.server, "effort-xhigh-run")).toMatchObject({ effort: "xhigh" });
    expect(reasoningFor(h.server, "effort-xhigh-agent")).toMatchObject({ effort: "xhigh" });
  });

  it(
    "max and ultra, the levels codex 0.171.0's model catalog adds, reach the model request (ultra as the model's own setting for it)",
    { timeout: 180_000 },
    async () => {
      h = await codexHarness({
        rules: [
          { when: whenPromptSays("effort-max"), reply: { text: "max" } },
          { when: whenPromptSays("effort-ultra"), reply: { text: "ultra" } },
        ],
      });
      agent = new Agent(codex({ cwd: h.env.workDir, env: h.env.env, inheritEnv: false, killGraceMs: 1000, transport }));
      await agent.run("effort-max", { effort: "max" });
      await agent.run("effort-ultra", { effort: "ultra" });
      expect(reasoningFor(h.server, "effort-max")).toMatchObject({ effort: "max" });
      // gpt-5.5 (the harness's model) has no ultra level: codex 0.171.0 sends its highest, xhigh.
      expect(reasoningFor(h.server, "effort-ultra")).toMatchObject({ effort: "xhigh" });
      // The Codex SDK's "persistent" is no level codex 0.171.0 sends (it sends "disabled"): refused before launch.
      const before = h.server.requests.length;
      const refused = await agent.run("effort-ultra", { effort: "persistent" as never }).catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(InvalidOptionError);
      expect(h.server.requests.length).toBe(before);
    },
  );

  it("a thread turn without effort keeps the thread's last effort on both transports", { timeout: 180_000 }, async () => {
    h = await codexHarness({
      rules: [
        { when: whenPromptSays("turn-minimal"), reply: { text: "one" } },
        { when: whenPromptSays("turn-default"), reply: { text: "two" } },
      ],
    });
    agent = new Agent(codex({ cwd: h.env.workDir, env: h.env.env, inheritEnv: false, killGraceMs: 1000, transport }), {
      threadStore: new MemoryThreadStore(),
    });
    const thread = agent.thread("effort");
    await thread.run("turn-minimal", { effort: "minimal" });
    await thread.run("turn-default");
    expect(reasoningFor(h.server, "turn-minimal")).toMatchObject({ effort: "minimal" });
    // codex's app-server stores a turn's effort with the thread and applies it to its later turns
    // (on the same process or a resumed one); on exec, where `codex exec resume` would take it from
    // the config again, the driver passes the effort kept in the checkpoint.
    expect(reasoningFor(h.server, "turn-default")).toMatchObject({ effort: "minimal" });
  });
});
