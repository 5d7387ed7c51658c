import { randomUUID } from "node:crypto";
import { text as streamText } from "node:stream/consumers";
import { getHeapSnapshot } from "node:v8";
import { describe, expect, it } from "vitest";
import type { ApprovalAsk, DriverEvent, DriverSink, PermissionDenial } from "@adaptor/driver";
import { RunRecord } from "../src/run/run-record.js";
import { Agent, RunError } from "../src/index.js";
import { scriptedDriver, untilAborted } from "./scripted-driver.js";

// The partial Result of a run the SDK stopped before its driver answered: the driver's partial
// report, completed with what the run's events and approvals showed (one RunRecord for every
// stopped verdict).

const ask = (toolCallId: string, input: unknown = { command: "rm -rf build" }): ApprovalAsk => ({
  kind: "permission",
  title: `Bash ${toolCallId}`,
  toolName: "Bash",
  toolCallId,
  input,
});
const response: DriverEvent = { type: "notice", kind: "model.response" };
const deny = { outcome: "deny", reason: "no" } as const;

/**
 * Whether a string beginning with `prefix` + `id` is on this process's heap (a heap snapshot
 * collects garbage first, and names each string by its first characters). The needle is made after
 * the snapshot, so that it is not itself on the heap.
 */
async function onHeap(prefix: string, id: string): Promise<boolean> {
  const snapshot = await streamText(getHeapSnapshot());
  return snapshot.includes(prefix + id);
}

describe("RunRecord", () => {
  it("lets go of the deltas since its last piece when the run waits, so they do not keep the chunks they were cut from", async () => {
    const record = new RunRecord(false);
    const id = randomUUID();
    // Deltas as a driver reads them: slices of a decoded stdout chunk.
    ((): void => {
      const chunk = `chunk-${id} ${"x".repeat(64)} a delta long enough to be a slice of its chunk`;
      record.observe({ type: "text-delta", text: chunk.slice(chunk.indexOf(" a delta")) });
    })();
    record.waiting();
    expect(await onHeap("chunk-", id)).toBe(false);
    record.observe({ type: "text-delta", text: " and after" });
    expect(record.text).toBe(" a delta long enough to be a slice of its chunk and after");
  });

  it("fills text, numTurns and permissionDenials from the events and decisions when the driver reported nothing", () => {
    const record = new RunRecord(true);
    for (const event of [{ type: "text-delta", text: "run" }, response, { type: "text-delta", text: "ning" }, response] as DriverEvent[])
      record.observe(event);
    record.decided(ask("c1"), deny);
    record.decided(ask("c2"), { outcome: "approve" });
    record.decided(ask("c1"), deny);
    expect(record.complete(undefined)).toEqual({
      text: "running",
      numTurns: 2,
      permissionDenials: [{ toolName: "Bash", toolCallId: "c1", input: { command: "rm -rf build" } }],
    });
  });

  it("a long run's text is every delta in order, as appending them gives, read once or again as more arrive", () => {
    const record = new RunRecord(false);
    // Deltas of every length around the pieces the text is kept in, with multi-unit characters.
    const deltas = Array.from({ length: 40_000 }, (_, i) => (i % 97 === 0 ? "é🙂".repeat(i % 300) : `tok ${i} `));
    let appended = "";
    for (const [i, text] of deltas.entries()) {
      record.observe({ type: "text-delta", text });
      appended += text;
      if (i === 25_000) expect(record.text).toBe(appended);
    }
    expect(appended.length).toBeGreaterThan(100_000);
    expect(record.text).toBe(appended);
    expect(record.complete(undefined).text).toBe(appended);
    expect(new RunRecord(false).complete(undefined).text).toBe("");
  });

  it("keeps the driver's fields and lists a refused call the driver did not after the driver's own", () => {
    const record = new RunRecord(true);
    record.observe(response);
    record.observe({ type: "text-delta", text: "streamed" });
    record.decided(ask("c1"), deny);
    record.decided(ask("c2"), deny);
    const own: PermissionDenial = { toolName: "Bash", toolCallId: "c1", input: { command: "rm -rf build", cwd: "/w" } };
    const usage = { inputTokens: 5000, outputTokens: 50 };
    expect(record.complete({ text: "reported", usage, costUsd: 0.02, numTurns: 3, permissionDenials: [own] })).toEqual({
      text: "reported",
      usage,
      costUsd: 0.02,
      numTurns: 3,
      permissionDenials: [own, { toolName: "Bash", toolCallId: "c2", input: { command: "rm -rf build" } }],
    });
  });

  it("no numTurns for a driver that does not report its model responses; an ask without a tool call id is no denial; none reported or made: unset", () => {
    const record = new RunRecord(false);
    record.observe(response);
    record.decided({ kind: "question", title: "which?" }, deny);
    expect(record.complete(undefined)).toEqual({ text: "" });
    expect(record.complete({ permissionDenials: [] })).toEqual({ text: "", permissionDenials: [] });
  });
});

/** Streams text, reports one model response, asks about `c1`, then waits for the abort (reporting `partial`, if given). */
function askingDriver(partial?: Parameters<NonNullable<DriverSink["partial"]>>[0]) {
  const driver = scriptedDriver(async (_request, sink, signal) => {
    signal.addEventListener("abort", () => partial && sink.partial?.(partial), { once: true });
    sink.emit({ type: "text-delta", text: "checking. " });
    sink.emit(response);
    sink.emit({ type: "tool-call", phase: "start", id: "c1", name: "Bash" });
    await sink.requestApproval(ask("c1"));
    return untilAborted(signal);
  });
  const capabilities = { ...driver.descriptor.capabilities, budgets: { turns: true } };
  return Object.assign(driver, { descriptor: { ...driver.descriptor, capabilities } });
}

async function stopped(driver: ReturnType<typeof askingDriver>): Promise<RunError> {
  const agent = new Agent(driver);
  const error = await agent
    .run("p", { policy: { approvals: { permission: "ask", onReject: "abort" } }, onApproval: (request) => request.deny("stop here") })
    .catch((e: unknown) => e);
  await agent.close();
  if (!(error instanceof RunError)) throw new Error(`expected a RunError, got ${String(error)}`);
  return error;
}

describe("RunError.result of a run the SDK stopped at an approval", () => {
  it("denied with onReject abort, the driver reporting nothing: the streamed text, one model response, the refused call", async () => {
    const error = await stopped(askingDriver());
    expect(error.reason).toBe("approval_denied");
    expect([error.result.text, error.result.numTurns, error.result.permissionDenials]).toEqual([
      "checking. ",
      1,
      [{ toolName: "Bash", toolCallId: "c1", input: { command: "rm -rf build" } }],
    ]);
  });

  it("denied with onReject abort: the usage, cost, model usage and transcript the driver reported as it stopped", async () => {
    const usage = { inputTokens: 5000, outputTokens: 50 };
    const transcript = [{ kind: "tool-call" as const, toolCallId: "c1", toolName: "Bash", input: {} }];
    const error = await stopped(askingDriver({ text: "checking. ", usage, costUsd: 0.02, modelUsage: { m: usage }, transcript }));
    expect(error.result.usage).toEqual(usage);
    expect(error.result.costUsd).toBe(0.02);
    expect(error.result.modelUsage).toEqual({ m: usage });
    expect(error.result.transcript()).toEqual(transcript);
    expect(error.result.numTurns).toBe(1);
    expect(error.result.permissionDenials?.map((denial) => denial.toolCallId)).toEqual(["c1"]);
  });
});
