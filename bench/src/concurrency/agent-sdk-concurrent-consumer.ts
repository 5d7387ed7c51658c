// The peer of the concurrent-runs benchmark (run with --expose-gc): the Claude Agent SDK's
// `query()`, RUNS concurrent queries against the same fake claude CLI as ours, measured the same
// way (./measure.ts): every `canUseTool` waits until all runs asked, then even runs are allowed and
// odd ones denied. Partial messages are asked for, as our runs stream text deltas.
import { query } from "@anthropic-ai/claude-agent-sdk";
import { FAKE_N, measureConcurrentRuns } from "./measure.js";

const command = process.env.FAKE_CLI;
if (!command) throw new Error("FAKE_CLI is required");

await measureConcurrentRuns(
  async (name, decide, expected) => {
    let deltas = 0;
    let approvals = 0;
    let text: string | undefined;
    try {
      for await (const message of query({
        prompt: name,
        options: {
          pathToClaudeCodeExecutable: command,
          executable: "node",
          includePartialMessages: true,
          env: { ...process.env, FAKE_N },
          canUseTool: async (_tool, input) => {
            approvals++;
            return (await decide(expected.startsWith("allowed")))
              ? { behavior: "allow", updatedInput: input }
              : { behavior: "deny", message: "odd run" };
          },
        },
      })) {
        if (message.type === "stream_event" && message.event.type === "content_block_delta") deltas++;
        else if (message.type === "result" && message.subtype === "success") text = message.result;
      }
    } catch (error) {
      return { ok: false, deltas, detail: `${name}: ${error instanceof Error ? error.message : String(error)}` };
    }
    const ok = text === expected && approvals === 1;
    return { ok, deltas, detail: ok ? "" : `${name}: text ${JSON.stringify(text)}, ${approvals} approval(s)` };
  },
  async () => undefined,
);
