import { request as httpRequest } from "node:http";
import { describe, expect, it, vi } from "vitest";
import type { DriverSink } from "@adaptor/driver";
import { Agent, HOST_TOOL_SERVER_NAME, defineTool } from "adaptor";
import { capabilityDriver } from "./support/capability-driver.js";
import { connectHostTools, hostToolEntry } from "./support/host-tool-client.js";

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

  it("a call the CLI gave up on (its request dropped) is no longer host work, though its handler still runs", async () => {
    let runSink: DriverSink | undefined;
    let entered!: () => void;
    const inHandler = new Promise<void>((resolve) => (entered = resolve));
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let handlerSignal: AbortSignal | undefined;
    const seen: Record<string, boolean | undefined> = {};
    // A handler that ignores its signal: it ends only when the test lets it.
    const tool = defineTool({
      name: "stuck",
      description: "Never answers in time",
      input: { type: "object", properties: {} },
      handler: async (_input, context) => {
        handlerSignal = context.signal;
        entered();
        await released;
        return "late";
      },
    });
    const driver = capabilityDriver({ mcp: { transports: ["stdio", "http"] } }, async (request, sink) => {
      runSink = sink;
      sink.emit({ type: "tool-call", phase: "end", id: "call-1", name: `mcp__${HOST_TOOL_SERVER_NAME}__stuck`, input: {} });
      const entry = hostToolEntry(request);
      // The CLI's tools/call, dropped once the handler runs (a CLI's own tool timeout closes its request).
      const body = JSON.stringify({ jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: "stuck", arguments: {} } });
      const req = httpRequest(entry.url, {
        method: "POST",
        agent: false,
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...entry.headers },
      });
      req.on("error", () => undefined);
      req.end(body);
      await inHandler;
      seen["while the CLI waits"] = sink.hostBusy?.();
      req.destroy();
      await vi.waitFor(() => expect(handlerSignal?.aborted).toBe(true), { timeout: 10_000 });
      seen["once the CLI gave up"] = sink.hostBusy?.();
      release();
      return { text: "done" };
    });
    await using agent = new Agent(driver, { tools: [tool] });
    const result = await agent.run("go");
    expect(result.text).toBe("done");
    expect(runSink).toBeDefined();
    expect(seen).toEqual({ "while the CLI waits": true, "once the CLI gave up": false });
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
