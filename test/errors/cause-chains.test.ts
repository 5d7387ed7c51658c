// Real failures, as a host receives them, walked down their `cause` chain: every link is an Error
// with a message and a stack (a reason is never left as a bare string), and the reason is on it.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { acp } from "@adaptor/acp";
import type { DriverCapabilities } from "@adaptor/driver";
import { DriverError, ErrCode, findError } from "@adaptor/errors";
import { MemoryThreadStore } from "@adaptor/threadstore";
import { SqliteThreadStore } from "@adaptor/threadstore-sqlite";
import { Agent } from "adaptor";
import { scriptedDriver, untilAborted } from "../../packages/adaptor/test/scripted-driver.js";

/** The chain from `err` down its `cause`s, each link as `[constructor name, message]`; throws at a link that is not an Error. */
function causeChain(err: unknown): [string, string][] {
  const links: [string, string][] = [];
  for (let node: unknown = err; node !== undefined; node = (node as { cause?: unknown }).cause) {
    if (!(node instanceof Error)) throw new Error(`link ${links.length} of the chain is not an Error: ${JSON.stringify(node)}`);
    expect(node.stack, `link ${links.length} has a stack`).toEqual(expect.any(String));
    links.push([node.constructor.name, node.message]);
    if (!("cause" in node)) break;
  }
  return links;
}

const folders: string[] = [];
afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

describe("every link of a failure's cause chain is an Error carrying its text", () => {
  it("an ACP agent that never answers initialize: TIMEOUT past handshakeTimeoutMs, its cause an Error naming the bound", async () => {
    // A silent agent: it reads stdin and never writes a line.
    const driver = acp({
      type: "silent",
      displayName: "Silent agent",
      command: process.execPath,
      args: ["-e", "process.stdin.resume()"],
      handshakeTimeoutMs: 2_000,
      killGraceMs: 1_000,
    });
    await using agent = new Agent(driver);
    const failed = await agent.run("hi").catch((e: unknown) => e);
    expect(findError(failed, DriverError)).toMatchObject({ code: ErrCode.Timeout, op: "initialize", device: "silent" });
    expect(causeChain(findError(failed, DriverError))).toEqual([
      ["DriverError", "[TIMEOUT] initialize: silent (no answer within 2000 ms (handshakeTimeoutMs))"],
      ["Error", "no answer within 2000 ms (handshakeTimeoutMs)"],
    ]);
    expect(causeChain(failed).at(-1)).toEqual(["Error", "no answer within 2000 ms (handshakeTimeoutMs)"]);
  });

  it("a hook that never settles: the run's error, then the TIMEOUT naming hookTimeoutMs", async () => {
    const scripted = scriptedDriver(async (_request, sink, signal) => {
      await sink.hook!({ point: "notification", message: "waiting", kind: "idle_prompt" });
      return untilAborted(signal);
    });
    const capabilities: DriverCapabilities = { ...scripted.descriptor.capabilities, hooks: ["notification"] };
    const driver = Object.assign(scripted, { descriptor: { ...scripted.descriptor, capabilities } });
    await using agent = new Agent(driver);
    const failed = await agent
      .run("p", { timeoutMs: 20_000, hookTimeoutMs: 1_000, hooks: { onNotification: () => new Promise<void>(() => undefined) } })
      .catch((e: unknown) => e);
    expect(causeChain(failed)).toEqual([
      ["AdaptorError", "hook onNotification failed"],
      ["DriverError", "[TIMEOUT] hook: hooks.onNotification (did not settle within hookTimeoutMs=1000)"],
    ]);
  });

  it("a run past its timeoutMs: TIMEOUT (op run), its cause an Error naming the bound", async () => {
    await using agent = new Agent(scriptedDriver(async (_request, _sink, signal) => untilAborted(signal)));
    const failed = await agent.run("p", { timeoutMs: 1_000 }).catch((e: unknown) => e);
    expect(causeChain(findError(failed, DriverError))).toEqual([
      ["DriverError", "[TIMEOUT] run: scripted (exceeded timeoutMs=1000)"],
      ["Error", "exceeded timeoutMs=1000"],
    ]);
    expect(causeChain(failed).at(-1)).toEqual(["Error", "exceeded timeoutMs=1000"]);
  });

  it("a thread turn on a closed store: DEVICE_DISCONNECTED, its cause an Error saying the store is closed", async () => {
    const store = new MemoryThreadStore();
    await using agent = new Agent(
      scriptedDriver(async () => ({ text: "ok" })),
      { threadStore: store },
    );
    await store.close();
    const failed = await agent
      .thread("k")
      .run("p")
      .catch((e: unknown) => e);
    const closed = findError(failed, DriverError);
    expect(closed).toMatchObject({ code: ErrCode.DeviceDisconnected, device: "threadstore-memory" });
    expect(causeChain(closed)).toEqual([
      ["DriverError", `[DEVICE_DISCONNECTED] ${closed!.op}: threadstore-memory (store closed)`],
      ["Error", "store closed"],
    ]);
    expect(causeChain(failed).at(-1)).toEqual(["Error", "store closed"]);
  });

  it("a call on a closed SQLite store: DEVICE_DISCONNECTED, its cause an Error saying the store is closed", async () => {
    const folder = mkdtempSync(join(tmpdir(), "cause-chains-"));
    folders.push(folder);
    const store = new SqliteThreadStore({ path: join(folder, "threads.db") });
    await store.close();
    const failed = await store.resolve({ key: "k" }).catch((e: unknown) => e);
    expect(causeChain(failed)).toEqual([
      ["DriverError", "[DEVICE_DISCONNECTED] resolve: threadstore-sqlite (store closed)"],
      ["Error", "store closed"],
    ]);
  });
});
