import { afterEach, describe, expect, it } from "vitest";
import { whenPromptSays, type OpenAIServer } from "@adaptor/testkit";
import { Agent, InvalidOptionError, findError, type AgentEvent } from "adaptor";
import { MemoryThreadStore } from "@adaptor/threadstore";
import { codex } from "@adaptor/codex";
import { codexHarness, type CodexHarness } from "./support.js";

// Reasoning effort `minimal` and web search on the real codex binary, both transports. The OpenAI
// API refuses the `web_search` tool with `reasoning.effort: "minimal"` (HTTP 400), and codex offers
// it by default: a `minimal` turn with web search unset runs without it, and `minimal` with web
// search allowed is refused before launch.

let h: CodexHarness | undefined;
let agent: Agent | undefined;
afterEach(async () => {
  await agent?.close();
  await h?.close();
  h = agent = undefined;
});

/** Whether the model requests of the prompt `marker` offered the `web_search` tool. */
function webSearchOffered(server: OpenAIServer, marker: string): boolean {
  const requests = server.requests.filter((r) => r.view.lastUserText.includes(marker));
  if (requests.length === 0) throw new Error(`no request carried ${marker}`);
  const offered = requests.map((r) => ((r.body as { tools?: { type?: string }[] }).tools ?? []).some((t) => t.type === "web_search"));
  expect(new Set(offered).size).toBe(1);
  return offered[0]!;
}

describe.each(["app-server", "exec"] as const)("effort minimal and web search over %s (real binary)", (transport) => {
  const config = (harness: CodexHarness) =>
    codex({ cwd: harness.env.workDir, env: harness.env.env, inheritEnv: false, killGraceMs: 1000, transport });

  it(
    "a minimal turn with web search unset runs without web_search, says so, and the thread's next turn at another effort has it again",
    { timeout: 180_000 },
    async () => {
      h = await codexHarness({
        rules: ["ws-before", "ws-minimal", "ws-after"].map((marker) => ({ when: whenPromptSays(marker), reply: { text: marker } })),
      });
      agent = new Agent(config(h), { threadStore: new MemoryThreadStore() });
      const thread = agent.thread("minimal");
      await thread.run("ws-before");
      const stream = thread.stream("ws-minimal", { effort: "minimal" });
      const notices: AgentEvent[] = [];
      for await (const event of stream) if (event.type === "notice" && event.kind === "policy.adjusted") notices.push(event);
      const minimal = await stream.result();
      await thread.run("ws-after", { effort: "medium" });

      expect(webSearchOffered(h.server, "ws-before")).toBe(true);
      expect(webSearchOffered(h.server, "ws-minimal")).toBe(false);
      expect(webSearchOffered(h.server, "ws-after")).toBe(true);
      expect(minimal.enforcement.find((e) => e.field === "webSearch")).toMatchObject({ value: "deny", enforced: true });
      expect(minimal.enforcement.find((e) => e.field === "webSearch")?.detail).toContain("minimal");
      expect(notices).toHaveLength(1);
      expect(notices[0]).toMatchObject({ data: { field: "webSearch", value: "deny", effort: "minimal" } });
    },
  );

  it(
    "a thread turn without effort after a minimal one runs at minimal without web_search; a turn naming another effort has it",
    { timeout: 180_000 },
    async () => {
      h = await codexHarness({
        rules: ["kept-minimal", "kept-none", "kept-low"].map((marker) => ({ when: whenPromptSays(marker), reply: { text: marker } })),
      });
      agent = new Agent(config(h), { threadStore: new MemoryThreadStore() });
      const thread = agent.thread("kept");
      await thread.run("kept-minimal", { effort: "minimal" });
      const kept = await thread.run("kept-none");
      await thread.run("kept-low", { effort: "low" });
      const reasoning = (marker: string) =>
        (h!.server.requests.find((r) => r.view.lastUserText.includes(marker))?.body as { reasoning?: unknown }).reasoning;
      expect(reasoning("kept-none")).toMatchObject({ effort: "minimal" });
      expect(webSearchOffered(h.server, "kept-none")).toBe(false);
      expect(kept.enforcement.find((e) => e.field === "webSearch")).toMatchObject({ value: "deny", enforced: true });
      expect(reasoning("kept-low")).toMatchObject({ effort: "low" });
      expect(webSearchOffered(h.server, "kept-low")).toBe(true);
    },
  );

  it("minimal with webSearch allow: InvalidOptionError before launch, no model request", async () => {
    h = await codexHarness();
    agent = new Agent(config(h));
    const refused = await agent.run("ws-allow", { effort: "minimal", policy: { webSearch: "allow" } }).catch((e: unknown) => e);
    expect(findError(refused, InvalidOptionError)).toMatchObject({ field: "effort" });
    expect(String((refused as Error).message)).toContain("web");
    expect(h.server.requests).toHaveLength(0);
  });

  it("policy webSearch deny removes web_search, allow offers it", { timeout: 180_000 }, async () => {
    h = await codexHarness({
      rules: ["ws-deny", "ws-allow"].map((marker) => ({ when: whenPromptSays(marker), reply: { text: marker } })),
    });
    agent = new Agent(config(h));
    const denied = await agent.run("ws-deny", { policy: { webSearch: "deny" } });
    await agent.run("ws-allow", { effort: "low", policy: { webSearch: "allow" } });
    expect(webSearchOffered(h.server, "ws-deny")).toBe(false);
    expect(webSearchOffered(h.server, "ws-allow")).toBe(true);
    expect(denied.enforcement.find((e) => e.field === "webSearch")).toMatchObject({ value: "deny", enforced: true });
  });
});
