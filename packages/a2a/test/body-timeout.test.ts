import { connect } from "node:net";
import { describe, expect, it } from "vitest";
import { askTwice, sendOnOneConnection, trickleBody } from "../../bridge/test/raw-socket.js";
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

  it("a forbidden host or an agent card answered before a trickled body is read closes the connection after the answer", async () => {
    const served = await serve(undefined, { bodyTimeoutMs: 1_000, log: () => undefined });
    const url = new URL(served.url);
    try {
      for (const [head, status, body] of [
        [
          `POST / HTTP/1.1\r\nhost: evil.example\r\ncontent-type: application/json\r\ncontent-length: 500\r\n\r\n`,
          403,
          '{"error":"forbidden host"}',
        ],
        [`GET /.well-known/agent-card.json HTTP/1.1\r\nhost: ${url.host}\r\ncontent-length: 500\r\n\r\n`, 200, '"name":"Reference agent"'],
      ] as const) {
        // One byte every 200 ms: the whole body would take 100 s.
        const trickled = await trickleBody(Number(url.port), head, 500);
        expect(trickled.answer).toMatch(new RegExp(`^HTTP/1\\.1 ${status} `));
        expect(trickled.answer).toContain(body);
        expect(trickled.answer.toLowerCase()).toContain("connection: close");
        expect(trickled.closed).toBe(true);
        // bodyTimeoutMs (1 s) plus a generous margin for a loaded machine.
        expect(trickled.elapsedMs).toBeLessThan(6_000);
      }
    } finally {
      await served.close();
    }
  });

  it("the server's own refusals of a GET (forbidden host, unauthorized, not found) close the connection; the agent card served to a GET keeps it", async () => {
    const served = await serve(undefined, { log: () => undefined, authorize: () => false });
    const url = new URL(served.url);
    try {
      for (const [request, status] of [
        [`GET /.well-known/agent-card.json HTTP/1.1\r\nhost: evil.example\r\n\r\n`, 403],
        [`GET /tasks HTTP/1.1\r\nhost: ${url.host}\r\n\r\n`, 401],
      ] as const) {
        expect([request, await askTwice(Number(url.port), request)]).toEqual([
          request,
          { status, connection: "close", second: undefined, open: false },
        ]);
      }
      const card = `GET /.well-known/agent-card.json HTTP/1.1\r\nhost: ${url.host}\r\n\r\n`;
      const kept = await sendOnOneConnection(Number(url.port), [card, card]);
      expect(kept.answers.map((answer) => answer?.slice(0, 15))).toEqual(["HTTP/1.1 200 OK", "HTTP/1.1 200 OK"]);
      expect(kept.open).toBe(true);
    } finally {
      await served.close();
    }
    const open = await serve(undefined, { log: () => undefined });
    const openUrl = new URL(open.url);
    try {
      const missing = `GET /nowhere HTTP/1.1\r\nhost: ${openUrl.host}\r\n\r\n`;
      expect(await askTwice(Number(openUrl.port), missing)).toEqual({ status: 404, connection: "close", second: undefined, open: false });
    } finally {
      await open.close();
    }
  });

  it("a request whose body arrived keeps its connection alive for the next request", async () => {
    const served = await serve(undefined, { bodyTimeoutMs: 1_000, log: () => undefined });
    const url = new URL(served.url);
    const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "GetTask", params: { id: "no-such-task" } });
    const getTask =
      `POST / HTTP/1.1\r\nhost: ${url.host}\r\ncontent-type: application/json\r\na2a-version: 1.0\r\n` +
      `content-length: ${body.length}\r\n\r\n${body}`;
    const card = `GET /.well-known/agent-card.json HTTP/1.1\r\nhost: ${url.host}\r\n\r\n`;
    try {
      const { answers, open } = await sendOnOneConnection(Number(url.port), [getTask, card, getTask]);
      expect(answers).toHaveLength(3);
      for (const answer of answers) {
        expect(answer).toMatch(/^HTTP\/1\.1 200 /);
        expect(answer!.toLowerCase()).toContain("connection: keep-alive");
      }
      expect(answers[0]).toContain("-32001");
      expect(answers[1]).toContain('"name":"Reference agent"');
      expect(open).toBe(true);
    } finally {
      await served.close();
    }
  });
});
