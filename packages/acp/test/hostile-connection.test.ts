import { describe, expect, it } from "vitest";
import { runDriver } from "@adaptor/driver/testing";
import { DriverError, ErrCode, findError } from "@adaptor/errors";
import { alive } from "./support.js";
import { hostileAcp, text, type HostileScenario } from "./hostile-agent/hostile.js";

/** Runs one prompt on the hostile agent; the verdict's DriverError, the agent's pid and whether it is gone. */
async function verdictOf(scenario: HostileScenario, extra: Parameters<typeof hostileAcp>[1] = {}) {
  const driver = hostileAcp(scenario, extra);
  try {
    const run = await runDriver(driver, { prompt: "hi" });
    const [pid] = run.recording.pids();
    expect(pid).toBeGreaterThan(0);
    return { run, error: findError(run.error, DriverError), pid: pid! };
  } finally {
    await driver.close();
  }
}

describe("a hostile ACP agent never keeps a run open (the stream's own error is the verdict, the process is ended)", () => {
  it("stdout closed during the prompt while the agent stays alive: DEVICE_DISCONNECTED (op read), not a later exit", async () => {
    const { error, pid, run } = await verdictOf({ "session/prompt": [[text("partial "), { closeStdout: true }, { hang: true }]] });
    expect(run.response).toBeUndefined();
    expect([error?.code, error?.op]).toEqual([ErrCode.DeviceDisconnected, "read"]);
    expect(String(error?.cause)).toContain("closed its stdout but kept running");
    expect(alive(pid)).toBe(false);
  });

  it("stdout closed during initialize while the agent stays alive: DEVICE_DISCONNECTED (op read)", async () => {
    const { error, pid } = await verdictOf({ initialize: [{ closeStdout: true }, { hang: true }] });
    expect([error?.code, error?.op]).toEqual([ErrCode.DeviceDisconnected, "read"]);
    expect(alive(pid)).toBe(false);
  });

  it("a line over maxLineBytes while the agent stays alive: RESOURCE_EXHAUSTED at once", async () => {
    const { error, pid } = await verdictOf({ "session/prompt": [[{ longLine: 200_000 }, { hang: true }]] }, { maxLineBytes: 100_000 });
    expect([error?.code, error?.op]).toEqual([ErrCode.ResourceExhausted, "read"]);
    expect(alive(pid)).toBe(false);
  });

  it("an answer cut off (a JSON-RPC line that is not JSON) while the agent stays alive: DRIVER (op read)", async () => {
    const { error, pid } = await verdictOf({
      "session/prompt": [[{ raw: '{"jsonrpc":"2.0","id":3,"result":{"stopRea\n' }, { hang: true }]],
    });
    expect([error?.code, error?.op]).toEqual([ErrCode.Driver, "read"]);
    expect(String(error?.cause)).toContain("cut off");
    expect(alive(pid)).toBe(false);
  });

  it("an answer cut off by the end of stdout (no newline): DRIVER (op read)", async () => {
    const { error } = await verdictOf({
      "session/prompt": [[{ raw: '{"jsonrpc":"2.0","id":3,"resu' }, { closeStdout: true }, { hang: true }]],
    });
    expect([error?.code, error?.op]).toEqual([ErrCode.Driver, "read"]);
  });

  it("a stdout line that is JSON but no object (null, a number, a string, a boolean, an array) is a line of text, as a banner is: the turn goes on", async () => {
    const lines = ["null", "42", '"str"', "true", "[1,2,3]"];
    const { run, error } = await verdictOf({
      "session/prompt": [[{ raw: `${lines.join("\n")}\n{"foo":1}\n` }, text("after the lines"), { respond: { stopReason: "end_turn" } }]],
    });
    expect(error).toBeUndefined();
    expect(run.response?.text).toBe("after the lines");
    expect(run.recording.ofType("process").filter((event) => event.kind === "stdout")).toEqual(
      lines.map((line) => ({ type: "process", kind: "stdout", text: line })),
    );
  });

  it("initialize never answered: TIMEOUT (op initialize) after handshakeTimeoutMs", async () => {
    const { error, pid } = await verdictOf({ initialize: [{ hang: true }] }, { handshakeTimeoutMs: 2_000 });
    expect([error?.code, error?.op]).toEqual([ErrCode.Timeout, "initialize"]);
    expect(alive(pid)).toBe(false);
  });

  it("session/new never answered: TIMEOUT (op session/new) after handshakeTimeoutMs", async () => {
    // The budget covers the agent's start-up and initialize too: on a busy machine starting Node
    // alone can take seconds, and the budget must run out during session/new, not before it.
    const { error } = await verdictOf({ "session/new": [{ hang: true }] }, { handshakeTimeoutMs: 15_000 });
    expect([error?.code, error?.op]).toEqual([ErrCode.Timeout, "session/new"]);
  });

  it("an agent that exits during the turn is still agent_error with its exit code", async () => {
    const { run } = await verdictOf({ "session/prompt": [[{ stderr: "boom\n" }, { exit: 9 }]] });
    expect(run.response?.failure).toMatchObject({ reason: "agent_error", details: { exitCode: 9 } });
  });
});
