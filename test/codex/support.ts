// The codex package's own test harness (scripted OpenAI server, isolated codex home), shared by
// these cross-package suites.
import type { ThreadStore } from "@adaptor/threadstore";
import { codexTestEnv, type CodexTestEnv, type OpenAIServer } from "@adaptor/testkit";
import { Agent, type AgentEvent, type ApprovalRequest, type Stream } from "adaptor";
import { codex } from "@adaptor/codex";
import type { CodexHarness } from "../../packages/codex/test/support.js";
export {
  alive,
  codexHarness,
  ESCALATE_RULE,
  FAKE_APP_SERVER_HANDSHAKE,
  fakeLine,
  NON_TMP_PARENT,
  type CodexHarness,
  type CodexHarnessOptions,
} from "../../packages/codex/test/support.js";

/** What a suite closes after each test, last opened first. */
export type Closer = (item: { close(): Promise<void> }) => void;

/**
 * One host of a thread shared across hosts: its own CODEX_HOME and working directory (a fresh
 * `codexTestEnv` on `server`), an Agent on `store` with the workspace `git@example.com:acme/app.git`
 * (so its checkout may live anywhere). `track` gets the env and the Agent to close.
 */
export async function codexHost(
  server: OpenAIServer,
  store: ThreadStore,
  track: Closer,
  transport: "app-server" | "exec" = "app-server",
): Promise<{ agent: Agent; env: CodexTestEnv }> {
  const env = await codexTestEnv({ server });
  track({ close: () => env.cleanup() });
  const agent = new Agent(codex({ env: env.env, inheritEnv: false, killGraceMs: 1000, transport }), {
    threadStore: store,
    cwd: env.workDir,
    workspace: "git@example.com:acme/app.git",
  });
  track(agent);
  return { agent, env };
}

/**
 * Runs `prompt` through an Agent on `harness` under permission `ask` and sandbox `unrestricted` (a
 * command codex wrongly ran could write, so an absent file proves it did not run), with a handler
 * that applies `decide` to each ask (`index` counts them from 0); returns the events, the verdict,
 * the asks and what `decide` threw.
 */
export async function runAsking(
  harness: CodexHarness,
  prompt: string,
  decide: (request: ApprovalRequest, index: number) => void,
): Promise<{ events: AgentEvent[]; thrown: unknown[]; requests: ApprovalRequest[]; verdict: unknown }> {
  const thrown: unknown[] = [];
  const requests: ApprovalRequest[] = [];
  const agent = new Agent(harness.driver, {
    onApproval: (request) => {
      requests.push(request);
      try {
        decide(request, requests.length - 1);
      } catch (error) {
        thrown.push(error);
      }
    },
  });
  const stream = agent.stream(prompt, { policy: { approvals: { permission: "ask" }, sandbox: "unrestricted" } });
  const events: AgentEvent[] = [];
  for await (const event of stream) events.push(event);
  const verdict = await stream.result().catch((error: unknown) => error);
  await agent.close();
  return { events, thrown, requests, verdict };
}

/**
 * Drains `stream`: the messages of its retry announcements (notices `error` with
 * `data.willRetry`), the pid of its spawned CLI, and its text or the error it rejected with.
 */
export async function drainRetries(
  stream: Stream,
): Promise<{ retries: string[]; pid: number | undefined; text: string | undefined; error: unknown }> {
  const retries: string[] = [];
  let pid: number | undefined;
  for await (const event of stream as AsyncIterable<AgentEvent>) {
    if (event.type === "process" && event.kind === "spawn") pid = event.pid;
    if (event.type === "notice" && event.kind === "error" && (event.data as { willRetry?: boolean } | undefined)?.willRetry)
      retries.push(event.message ?? "");
  }
  const outcome = await stream.result().then(
    (result) => ({ text: result.text, error: undefined }),
    (error: unknown) => ({ text: undefined, error }),
  );
  return { retries, pid, ...outcome };
}
