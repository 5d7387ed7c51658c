import { describe, expect, it } from "vitest";
import type { DriverSink } from "@adaptor/driver";
import { Agent, HOST_TOOL_SERVER_NAME, defineTool } from "adaptor";
import { capabilityDriver } from "./support/capability-driver.js";
import { connectHostTools } from "./support/host-tool-client.js";

// A host tool runs in the host's process while the CLI waits on it: the sink tells the driver so
// (`hostBusy`), and the driver kit's stall watchdog does not count that silence.

describe("a host tool's call is host work the CLI waits on", () => {
  it("the driver's sink reports hostBusy while the call's approval and handler run, and not before or after", async () => {
    let runSink: DriverSink | undefined;
    const seen: Record<string, boolean | undefined> = {};
    const tool = defineTool({
      name: "slow_ci",
      description: "Runs CI",
      input: { type: "object", properties: {} },
      handler: () => {
        seen["in handler"] = runSink?.hostBusy?.();
        return "ci green";
      },
    });
    const driver = capabilityDriver(
      {
        mcp: { transports: ["stdio", "http"] },
        approvals: { permission: ["inherit", "ask"], plan_review: ["inherit"], question: ["inherit"] },
      },
      async (request, sink) => {
        runSink = sink;
        seen["before the call"] = sink.hostBusy?.();
        sink.emit({ type: "tool-call", phase: "end", id: "call-1", name: `mcp__${HOST_TOOL_SERVER_NAME}__slow_ci`, input: {} });
        const client = await connectHostTools(request);
        try {
          const reply = (await client.callTool({ name: "slow_ci", arguments: {} }, undefined, { signal: AbortSignal.timeout(60_000) })) as {
            content: { text: string }[];
          };
          seen["after the call"] = sink.hostBusy?.();
          return { text: reply.content[0]!.text };
        } finally {
          await client.close();
        }
      },
    );
    await using agent = new Agent(driver, { tools: [tool] });
    const result = await agent.run("go", {
      policy: { approvals: { permission: "ask" } },
      onApproval: (request) => {
        seen["in approval"] = runSink?.hostBusy?.();
        return request.approve();
      },
    });
    expect(result.text).toBe("ci green");
    expect(seen).toEqual({ "before the call": false, "in approval": true, "in handler": true, "after the call": false });
  });

  it("a run without host tools gives the driver no hostBusy", async () => {
    let given: unknown = "unset";
    const driver = capabilityDriver({}, async (_request, sink) => {
      given = sink.hostBusy;
      return {};
    });
    await using agent = new Agent(driver);
    await agent.run("go");
    expect(given).toBeUndefined();
  });
});
