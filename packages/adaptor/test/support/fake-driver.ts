// An in-process Driver for the matching-rule tests: no process, the run is a test function.
import type { Driver, DriverRequest, DriverResponse } from "@adaptor/driver";

/** What the fake driver's `run` resolves with unless the script overrides it. */
export const BASE_RESPONSE: DriverResponse = {
  text: "partial answer",
  model: "claude-sonnet-4-5",
  usage: { inputTokens: 10, outputTokens: 2 },
  transcript: [{ kind: "assistant", text: "partial answer" }],
  raw: { stdout: '{"type":"result","is_error":true}\n', stderr: "warning: retrying\n" },
};

/** A driver whose `run` is `script`; `validateConfig` may be replaced to throw. */
export function fakeDriver(
  script: (request: DriverRequest, signal: AbortSignal) => Promise<Partial<DriverResponse>>,
  validateConfig: () => void = () => undefined,
): Driver {
  return {
    descriptor: {
      type: "fake",
      displayName: "Fake",
      capabilities: {
        sessions: { resume: false, fork: false },
        processReuse: false,
        structuredOutput: { native: false, prompt: false },
        skills: true,
        mcp: { transports: [] },
        policy: { sandbox: [], webSearch: [], browser: [], activeExecutionTimeout: false },
        approvals: { permission: [], plan_review: [], question: [] },
        streaming: { textDeltas: false, thinking: false, toolCallArgs: false },
      },
    },
    validateConfig,
    async run(request, _sink, signal) {
      return { ...BASE_RESPONSE, ...(await script(request, signal)) };
    },
  };
}

/** What a well-behaved driver does when aborted: reaps the CLI, then rejects with the reason in the chain. */
export function rejectOnAbort(signal: AbortSignal): Promise<never> {
  return new Promise((_, reject) => {
    const fail = (): void => reject(new Error("claude: terminated after abort", { cause: signal.reason }));
    if (signal.aborted) fail();
    else signal.addEventListener("abort", fail, { once: true });
  });
}

/** The settled rejection of `promise` (fails the test if it resolves). */
export async function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error("expected the promise to reject, but it resolved");
}
