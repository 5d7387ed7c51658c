// A process-less driver with chosen structured-output and MCP capabilities, for the issue 5 tests.
import type { Driver, DriverCapabilities, DriverRequest, DriverResponse, DriverSink } from "@adaptor/driver";
import { reportEnforcement } from "@adaptor/driver/kit";

export interface CapabilityDriver extends Driver {
  /** Requests the driver received, in order (empty when the run failed before launch). */
  readonly requests: DriverRequest[];
}

/** A driver whose `run` is `script`; `capabilities` patches the structured-output, MCP and skills fields. */
export function capabilityDriver(
  capabilities: Partial<Pick<DriverCapabilities, "structuredOutput" | "mcp" | "skills" | "approvals">>,
  script: (request: DriverRequest, sink: DriverSink, signal: AbortSignal) => Promise<Partial<DriverResponse>> = async () => ({}),
): CapabilityDriver {
  const requests: DriverRequest[] = [];
  return {
    descriptor: {
      type: "capability",
      displayName: "Capability",
      capabilities: {
        sessions: { resume: false, fork: false },
        processReuse: false,
        structuredOutput: capabilities.structuredOutput ?? { native: false, prompt: false },
        skills: capabilities.skills ?? true,
        mcp: capabilities.mcp ?? { transports: [] },
        policy: { sandbox: [], webSearch: [], browser: [], activeExecutionTimeout: false },
        approvals: capabilities.approvals ?? { permission: ["inherit"], plan_review: ["inherit"], question: ["inherit"] },
        streaming: { textDeltas: false, thinking: false, toolCallArgs: false },
      },
    },
    validateConfig: () => undefined,
    requests,
    async run(request, sink, signal) {
      requests.push(request);
      const partial = await script(request, sink, signal);
      // Its asks are the SDK's approvals: each explicitly set field is reported enforced so, unless
      // the script reports its own `enforcement`.
      const enforcement = reportEnforcement(request.policy, () => ({ mechanisms: ["approval"], detail: "the driver asks the host" }));
      return { text: "", transcript: [], raw: { stdout: "", stderr: "" }, enforcement, ...partial };
    },
  };
}
