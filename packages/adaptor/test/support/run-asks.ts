import type { ApprovalAsk, ApprovalDecision } from "@adaptor/driver";
import { Agent, type ApprovalRequest, type Policy } from "../../src/index.js";
import { scriptedDriver } from "../scripted-driver.js";

/**
 * Runs one prompt on a scripted driver that asks `asks` in order under `policy`, each request
 * reaching the host's `onApproval` passed to `decide`.
 * @returns the requests the host saw, and the decisions the driver got, in order (or the run's
 * error when it rejected).
 */
export async function runAsks(
  asks: readonly ApprovalAsk[],
  policy: Policy,
  decide: (request: ApprovalRequest) => void = (request) => request.approve(),
): Promise<{ requests: ApprovalRequest[]; decisions: ApprovalDecision[] | Error }> {
  const requests: ApprovalRequest[] = [];
  const driver = scriptedDriver(async (_request, sink) => {
    const outcomes: ApprovalDecision[] = [];
    for (const ask of asks) outcomes.push(await sink.requestApproval(ask));
    return { text: JSON.stringify(outcomes) };
  });
  await using agent = new Agent(driver, {
    onApproval: (request) => {
      requests.push(request);
      decide(request);
    },
  });
  const result = await agent.run("p", { policy }).catch((error: unknown) => error as Error);
  return { requests, decisions: result instanceof Error ? result : (JSON.parse(result.text) as ApprovalDecision[]) };
}
