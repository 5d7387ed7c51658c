import { connect } from "node:net";
import { ReferenceDriver } from "@adaptor/driver/testing";
import { Agent, ErrInvalidOption, isError } from "adaptor";
import { describe, expect, it } from "vitest";
import { a2aServer } from "../src/index.js";
import { serve } from "./support.js";

// A client that trickles its request body (slowloris) must not hold a connection open forever:
// the server answers 408 after bodyTimeoutMs and closes the connection, as the bridge does.
describe("the A2A server's body timeout", () => {
  it("a body trickled byte by byte is cut at bodyTimeoutMs with 408 and the connection closed", async () => {
    const served = await serve(undefined, { bodyTimeoutMs: 1_000, log: () => undefined });
    const url = new URL(served.url);
    const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "GetTask", params: { id: "a task sent one byte at a time" } });
    const socket = connect(Number(url.port), "127.0.0.1");
    let answer = "";
    let closed = false;
    socket.on("data", (chunk: Buffer) => (answer += chunk.toString("utf8")));
    socket.on("close", () => (closed = true));
    socket.on("error", () => undefined);
    try {
      socket.write(
        `POST / HTTP/1.1\r\nhost: ${url.host}\r\ncontent-type: application/json\r\na2a-version: 1.0\r\n` +
          `content-length: ${body.length}\r\n\r\n`,
      );
      // One byte every 250 ms would take about 25 s; the server answers after about one second.
      for (let sent = 0; sent < body.length && !closed && answer === ""; sent++) {
        socket.write(body[sent]!);
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
      expect(answer).toMatch(/^HTTP\/1\.1 408 /);
      expect(answer).toContain('{"error":"request timeout"}');
      expect(answer.toLowerCase()).toContain("connection: close");
      while (!closed) await new Promise((resolve) => setTimeout(resolve, 50));
    } finally {
      socket.destroy();
      await served.close();
    }
  });

  it("a body that arrives in time is served as before", async () => {
    const served = await serve(undefined, { bodyTimeoutMs: 1_000, log: () => undefined });
    try {
      const response = await fetch(served.url, {
        method: "POST",
        headers: { "content-type": "application/json", "a2a-version": "1.0" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "GetTask", params: { id: "no-such-task" } }),
      });
      expect(response.status).toBe(200);
      expect(((await response.json()) as { error?: { code?: number } }).error?.code).toBe(-32001);
    } finally {
      await served.close();
    }
  });

  it("refuses a bodyTimeoutMs that is not a positive timer duration with InvalidOptionError naming it", async () => {
    await using agent = new Agent(new ReferenceDriver({ latencyMs: 0 }));
    for (const bodyTimeoutMs of [0, -1, Number.NaN, 2 ** 31, "30000"]) {
      let error: unknown;
      try {
        a2aServer(agent, { url: "http://127.0.0.1:1", card: { name: "n", description: "d" }, bodyTimeoutMs: bodyTimeoutMs as number });
      } catch (err) {
        error = err;
      }
      expect(isError(error, ErrInvalidOption)).toBe(true);
      expect((error as { field?: string }).field).toBe("bodyTimeoutMs");
    }
  });
});
