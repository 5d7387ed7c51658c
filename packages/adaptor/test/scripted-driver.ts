import type { ApprovalDecision, Driver, DriverRequest, DriverResponse, DriverSink } from "@adaptor/driver";
import { reportEnforcement } from "@adaptor/driver/kit";

/** A driver whose run is a test-provided async function; records requests. No process involved. */
export function scriptedDriver(
  script: (request: DriverRequest, sink: DriverSink, signal: AbortSignal) => Promise<Partial<DriverResponse>>,
  extra: Partial<Driver> = {},
): Driver & { requests: DriverRequest[]; decisions: ApprovalDecision[] } {
  const requests: DriverRequest[] = [];
  const decisions: ApprovalDecision[] = [];
  return {
    descriptor: {
      type: "scripted",
      displayName: "Scripted",
      capabilities: {
        sessions: { resume: false, fork: false },
        processReuse: false,
        structuredOutput: { native: false, prompt: false },
        skills: true,
        mcp: { transports: [] },
        policy: { sandbox: [], webSearch: [], browser: [], activeExecutionTimeout: false },
        approvals: {
          permission: ["inherit", "ask", "auto_approve", "auto_deny"],
          plan_review: ["inherit", "ask", "auto_approve", "auto_deny"],
          question: ["inherit", "ask", "auto_deny"],
          elicitation: ["inherit", "ask", "auto_deny"],
        },
        streaming: { textDeltas: true, thinking: false, toolCallArgs: false },
      },
    },
    validateConfig: () => undefined,
    requests,
    decisions,
    async run(request, sink, signal) {
      requests.push(request);
      const wrapped: DriverSink = {
        emit: (event) => sink.emit(event),
        requestApproval: async (ask) => {
          const decision = await sink.requestApproval(ask);
          decisions.push(decision);
          return decision;
        },
        ...(sink.hook ? { hook: sink.hook.bind(sink) } : {}),
        ...(sink.partial ? { partial: sink.partial.bind(sink) } : {}),
        ...(sink.attachControl ? { attachControl: sink.attachControl.bind(sink) } : {}),
        ...(sink.ruleDenies ? { ruleDenies: sink.ruleDenies.bind(sink) } : {}),
      };
      const partial = await script(request, wrapped, signal);
      // Its asks are the SDK's approvals: every explicitly set field is reported enforced so,
      // unless the script reports its own `enforcement`.
      const enforcement = reportEnforcement(request.policy, () => ({ mechanisms: ["approval"], detail: "scripted asks the host" }));
      return { text: "", transcript: [], raw: { stdout: "", stderr: "" }, enforcement, ...partial };
    },
    ...extra,
  };
}

/** Resolves when `signal` aborts, rejecting with its reason (what a real driver does after reaping). */
export function untilAborted(signal: AbortSignal): Promise<never> {
  return new Promise((_, reject) => {
    if (signal.aborted) reject(signal.reason);
    signal.addEventListener("abort", () => reject(signal.reason), { once: true });
  });
}
