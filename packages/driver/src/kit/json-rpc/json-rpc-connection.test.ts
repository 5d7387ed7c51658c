import { describe, expect, it } from "vitest";
import { DriverError, ErrCode, findError } from "@adaptor/errors";
import { JsonRpcConnection, JSON_RPC_METHOD_NOT_FOUND, type JsonRpcServerRequest } from "./json-rpc-connection.js";
import { JsonRpcError } from "./json-rpc-error.js";

/** A transport that records what was written and can be made to fail. */
function transport(fail?: unknown) {
  const written: Record<string, unknown>[] = [];
  return {
    written,
    device: "peer",
    writeJson(value: unknown): Promise<void> {
      if (fail !== undefined) return Promise.reject(fail);
      written.push(value as Record<string, unknown>);
      return Promise.resolve();
    },
  };
}

function connection(options: ConstructorParameters<typeof JsonRpcConnection>[2] = {}, fail?: unknown) {
  const t = transport(fail);
  const notifications: [string, unknown][] = [];
  const requests: JsonRpcServerRequest[] = [];
  const rpc = new JsonRpcConnection(
    t,
    { onNotification: (m, p) => notifications.push([m, p]), onServerRequest: (r) => requests.push(r) },
    options,
  );
  return { rpc, written: t.written, notifications, requests };
}

describe("JsonRpcConnection", () => {
  it("matches responses to requests by id, in any order, with the jsonrpc member on what it sends", async () => {
    const { rpc, written } = connection();
    const a = rpc.request<string>("a/one", { x: 1 });
    const b = rpc.request<string>("b/two");
    expect(written).toEqual([
      { jsonrpc: "2.0", id: 1, method: "a/one", params: { x: 1 } },
      { jsonrpc: "2.0", id: 2, method: "b/two" },
    ]);
    expect(rpc.accept({ jsonrpc: "2.0", id: 2, result: "second" })).toBe(true);
    expect(rpc.accept({ id: 1, result: "first" })).toBe(true); // no "jsonrpc" member: still a response
    await expect(a).resolves.toBe("first");
    await expect(b).resolves.toBe("second");
    expect(rpc.pendingCount).toBe(0);
  });

  it("leaves the jsonrpc member out for peers that omit it (codex app-server), on requests, notifications and answers", async () => {
    const { rpc, written } = connection({ jsonrpcMember: false });
    void rpc.request("initialize", {});
    rpc.notify("initialized");
    await rpc.respond(7, { decision: "accept" });
    await rpc.respondError("s1", JSON_RPC_METHOD_NOT_FOUND, "no such method");
    expect(written).toEqual([
      { id: 1, method: "initialize", params: {} },
      { method: "initialized" },
      { id: 7, result: { decision: "accept" } },
      { id: "s1", error: { code: -32601, message: "no such method" } },
    ]);
  });

  it("hands notifications and the peer's requests (numeric or string ids) to the handlers, with or without the jsonrpc member", () => {
    const { rpc, notifications, requests } = connection();
    expect(rpc.accept({ method: "item/delta", params: { delta: "hi" } })).toBe(true);
    expect(rpc.accept({ jsonrpc: "2.0", method: "session/update", params: { n: 1 } })).toBe(true);
    expect(rpc.accept({ id: 0, method: "approve", params: { tool: "shell" } })).toBe(true);
    expect(rpc.accept({ jsonrpc: "2.0", id: "r-1", method: "fs/read" })).toBe(true);
    expect(notifications).toEqual([
      ["item/delta", { delta: "hi" }],
      ["session/update", { n: 1 }],
    ]);
    expect(requests).toEqual([
      { id: 0, method: "approve", params: { tool: "shell" } },
      { id: "r-1", method: "fs/read", params: undefined },
    ]);
  });

  it("says false for what is not a JSON-RPC message, and ignores a response nobody waits for", () => {
    const { rpc } = connection();
    for (const stray of [null, 3, "text", [1], { hello: "world" }, { id: 1 }, { id: "x", result: 1 }])
      expect(rpc.accept(stray)).toBe(false);
    expect(rpc.accept({ id: 99, result: "late" })).toBe(true);
  });

  it("an error answer rejects with JsonRpcError carrying method, code, data; errorFor makes a driver's own subclass", async () => {
    const { rpc } = connection();
    const pending = rpc.request("thread/resume", {});
    rpc.accept({ id: 1, error: { code: -32600, message: "no rollout found", data: { id: "t" } } });
    const err = await pending.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(JsonRpcError);
    expect(err).toMatchObject({
      method: "thread/resume",
      code: -32600,
      data: { id: "t" },
      message: "peer thread/resume: no rollout found (JSON-RPC -32600)",
    });

    class MyRpcError extends JsonRpcError {
      static override readonly brand: symbol = Symbol.for("adaptor.error.MyRpcError");
    }
    const custom = connection({ errorFor: (method, error) => new MyRpcError("mine", method, error) }).rpc;
    const refused = custom.request("x");
    custom.accept({ id: 1, error: { message: "odd" } });
    const thrown = await refused.catch((e: unknown) => e);
    expect(thrown).toBeInstanceOf(MyRpcError);
    expect(findError(thrown, JsonRpcError)).toBe(thrown);
    expect((thrown as MyRpcError).code).toBe(0);
  });

  it("close() rejects waiting and later requests with DEVICE_DISCONNECTED carrying the cause, text as an Error", async () => {
    const { rpc } = connection();
    const waiting = rpc.request("turn/start", {});
    rpc.close("peer exited with code 1");
    for (const p of [waiting, rpc.request("later")]) {
      const err = await p.catch((e: unknown) => e);
      expect(err).toBeInstanceOf(DriverError);
      expect(err).toMatchObject({ code: ErrCode.DeviceDisconnected, message: expect.stringMatching(/ \(peer exited with code 1\)$/) });
      expect((err as DriverError).cause).toBeInstanceOf(Error);
      expect((err as DriverError).cause).toMatchObject({ message: "peer exited with code 1" });
    }
  });

  it("a failed write rejects only its own request with the transport's error; failPending rejects all waiting ones", async () => {
    const broken = new DriverError({ op: "write", device: "peer", code: ErrCode.BrokenPipe });
    const { rpc } = connection({}, broken);
    await expect(rpc.request("x")).rejects.toBe(broken);
    expect(rpc.pendingCount).toBe(0);

    const ok = connection().rpc;
    const one = ok.request("one");
    const two = ok.request("two");
    ok.failPending((method) => new Error(`unreadable: ${method}`));
    await expect(one).rejects.toThrow("unreadable: one");
    await expect(two).rejects.toThrow("unreadable: two");
  });

  it("a request without a response within replyTimeoutMs rejects with a TIMEOUT DriverError naming the method", async () => {
    const { rpc } = connection({ replyTimeoutMs: 20 });
    const err = await rpc.request("slow/thing").catch((e: unknown) => e);
    expect(err).toMatchObject({ code: ErrCode.Timeout, op: "slow/thing" });
    expect(rpc.pendingCount).toBe(0);
  });
});
