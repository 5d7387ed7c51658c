import { connect } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { REFERENCE_DESCRIPTOR } from "@adaptor/driver/testing";
import type { Driver, DriverRequest, DriverResponse, DriverSink } from "@adaptor/driver";
import { Agent, ErrInvalidOption, findError, InvalidOptionError, isError, RunError } from "adaptor";
import { Bridge } from "../src/index.js";
import { postJson, readUntil, referenceAgent, serve, sseMessages, type Served } from "./support.js";

// The transport: Last-Event-ID replay from a bounded buffer, keep-alive pings, the per-write
// timeout, CORS, close(), and option checks.

let served: Served | undefined;
afterEach(async () => {
  await served?.close();
  served = undefined;
});

/** Fault injection: a driver that emits `chunks` text deltas of `size` characters, then waits until cancelled. */
function floodDriver(chunks: number, size: number): Driver {
  return {
    descriptor: REFERENCE_DESCRIPTOR,
    validateConfig() {},
    async run(_request: DriverRequest, sink: DriverSink, signal: AbortSignal): Promise<DriverResponse> {
      const piece = "x".repeat(size);
      for (let i = 0; i < chunks; i++) sink.emit({ type: "text-delta", text: piece });
      await new Promise((resolve) => signal.addEventListener("abort", resolve, { once: true }));
      throw signal.reason;
    },
  };
}

describe("reconnect with Last-Event-ID", () => {
  it("replays what the client missed, then continues live: the approval asked while away can still be answered", async () => {
    served = await serve({ runner: referenceAgent(), reconnectGraceMs: 60_000 });
    const first = new AbortController();
    const response = await postJson(`${served.url}/runs`, { prompt: "TOOL deploy" }, { signal: first.signal });
    const key = response.headers.get("x-adaptor-run-id")!;
    const seen = await readUntil(sseMessages(response), (m) => m.data["type"] === "run-started");
    first.abort();

    const again = await fetch(`${served.url}/runs/${key}/events`, { headers: { "last-event-id": seen.at(-1)!.id! } });
    expect(again.status).toBe(200);
    const messages = sseMessages(again);
    const replayed = await readUntil(messages, (m) => m.data["type"] === "approval-request");
    expect(Number(replayed[0]!.id)).toBe(Number(seen.at(-1)!.id) + 1);
    const id = String((replayed.at(-1)!.data["request"] as { id: string }).id);
    expect((await postJson(`${served.url}/approvals/${id}`, { decision: "approve" })).status).toBe(200);
    const rest = await readUntil(messages, (m) => m.data["type"] === "run-finished");
    expect(rest.at(-1)!.data).toMatchObject({ ok: true });
    expect((await served.settledRun(key)).result?.text).toBe("Done: ran deploy");
  });

  it("a run waiting on an approval outlives the reconnect grace: answered after the grace, it finishes with its verdict and a reconnect replays it", async () => {
    served = await serve({ runner: referenceAgent({ policy: { approvals: { timeoutMs: 120_000 } } }), reconnectGraceMs: 300 });
    const dropped = new AbortController();
    const response = await postJson(`${served.url}/runs`, { prompt: "TOOL deploy" }, { signal: dropped.signal });
    const key = response.headers.get("x-adaptor-run-id")!;
    const seen = await readUntil(sseMessages(response), (m) => m.data["type"] === "approval-request");
    const id = String((seen.at(-1)!.data["request"] as { id: string }).id);
    dropped.abort();
    // Well past the grace (several times over): the question is still open.
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    expect(served.settled).toEqual([]);
    const answer = await postJson(`${served.url}/approvals/${id}`, { decision: "approve" });
    expect(await answer.json()).toEqual({ id, status: "approved" });
    const again = await fetch(`${served.url}/runs/${key}/events`, { headers: { "last-event-id": seen.at(-1)!.id! } });
    expect(again.status).toBe(200);
    const rest = await readUntil(sseMessages(again), (m) => m.data["type"] === "run-finished");
    expect(Number(rest[0]!.id)).toBe(Number(seen.at(-1)!.id) + 1);
    expect(rest.at(-1)!.data).toMatchObject({ type: "run-finished", ok: true });
    expect((await served.settledRun(key)).result?.text).toBe("Done: ran deploy");
  });

  it("a run waiting on an approval nobody answers ends when the approval's own deadline passes, not before", async () => {
    served = await serve({
      runner: referenceAgent({ policy: { approvals: { timeoutMs: 1_500, onTimeout: "abort" } } }),
      reconnectGraceMs: 300,
    });
    const dropped = new AbortController();
    const response = await postJson(`${served.url}/runs`, { prompt: "TOOL deploy" }, { signal: dropped.signal });
    const key = response.headers.get("x-adaptor-run-id")!;
    await readUntil(sseMessages(response), (m) => m.data["type"] === "approval-request");
    dropped.abort();
    const settled = await served.settledRun(key);
    expect(findError(settled.error, RunError)?.reason).toBe("approval_timeout");
  });

  it("after the run finished, a reconnect replays the end; frames the bounded buffer evicted are reported as a gap", async () => {
    served = await serve({ runner: referenceAgent(), replayFrames: 3 });
    const response = await postJson(`${served.url}/runs`, { prompt: "a prompt long enough to need several text deltas" });
    const key = response.headers.get("x-adaptor-run-id")!;
    const all = await readUntil(sseMessages(response), (m) => m.data["type"] === "run-finished");
    expect(all.length).toBeGreaterThan(3);

    const replay = await readUntil(
      sseMessages(await fetch(`${served.url}/runs/${key}/events`, { headers: { "last-event-id": "0" } })),
      (m) => m.data["type"] === "run-finished",
    );
    expect(replay[0]).toMatchObject({ event: "replay-gap", data: { type: "replay-gap", firstId: 1, lastId: Number(all.at(-4)!.id) } });
    expect(replay.slice(1).map((m) => m.id)).toEqual(all.slice(-3).map((m) => m.id));
  });
});

describe("keep-alive, slow clients, CORS, shutdown", () => {
  it("sends `: ping` comments while a run waits", async () => {
    served = await serve({ runner: referenceAgent(), pingIntervalMs: 50 });
    const comments: string[] = [];
    const messages = sseMessages(await postJson(`${served.url}/runs`, { prompt: "TOOL wait" }), (comment) => comments.push(comment));
    const asked = (await readUntil(messages, (m) => m.data["type"] === "approval-request")).at(-1)!;
    // Keep reading (the parser sees comments only while the body is read), wait for a ping, then finish the run.
    const reading = readUntil(messages, (m) => m.data["type"] === "run-finished");
    while (comments.length === 0) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(comments[0]!.trim()).toBe("ping");
    await postJson(`${served.url}/approvals/${(asked.data["request"] as { id: string }).id}`, { decision: "approve" });
    expect((await reading).at(-1)!.data).toMatchObject({ ok: true });
  });

  it("a client that stops reading is dropped after the write timeout, which cancels its run", async () => {
    served = await serve({ runner: new Agent(floodDriver(400, 64 * 1024)), writeTimeoutMs: 1_000, reconnectGraceMs: 0 });
    const { port } = new URL(served.url);
    const socket = connect(Number(port), "127.0.0.1");
    const body = JSON.stringify({ prompt: "flood" });
    socket.write(
      `POST /runs HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n${body}`,
    );
    socket.pause(); // never read: the server's writes back up
    try {
      while (served.settled.length === 0) await new Promise((resolve) => setTimeout(resolve, 100));
      expect((served.settled[0]!.error as Error).name).toBe("AbortError");
    } finally {
      socket.destroy();
    }
  });

  it("a client gone before its run started (while the runner was picked) still gets its run cancelled", async () => {
    const agent = referenceAgent();
    let picked: () => void = () => undefined;
    const picking = new Promise<void>((resolve) => (picked = resolve));
    served = await serve({
      runner: async ({ request }) => {
        picked();
        // Hand out the runner only once the server saw the client's socket close.
        while (!request.socket.destroyed) await new Promise((resolve) => setTimeout(resolve, 50));
        return agent;
      },
      reconnectGraceMs: 0,
    });
    const gone = new AbortController();
    const request = postJson(`${served.url}/runs`, { prompt: "SLOW" }, { signal: gone.signal }).catch(() => undefined);
    await picking;
    gone.abort();
    await request;
    while (served.settled.length === 0) await new Promise((resolve) => setTimeout(resolve, 50));
    expect((served.settled[0]!.error as Error).name).toBe("AbortError");
  });

  it("sends no CORS headers unless configured; configured, it answers preflights for allowed origins only", async () => {
    served = await serve({ runner: referenceAgent() });
    const plain = await postJson(
      `${served.url}/runs`,
      { prompt: "hi" },
      { headers: { origin: "https://app.example", "content-type": "application/json" } },
    );
    expect(plain.status).toBe(403);
    expect(plain.headers.get("access-control-allow-origin")).toBeNull();
    await plain.body?.cancel();
    expect((await fetch(`${served.url}/runs`, { method: "OPTIONS", headers: { origin: "https://app.example" } })).status).toBe(404);
    await served.close();

    served = await serve({ runner: referenceAgent(), cors: { origins: ["https://app.example"] } });
    const preflight = await fetch(`${served.url}/runs`, {
      method: "OPTIONS",
      headers: { origin: "https://app.example", "access-control-request-method": "POST" },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get("access-control-allow-origin")).toBe("https://app.example");
    expect(preflight.headers.get("access-control-allow-headers")).toContain("last-event-id");
    const other = await fetch(`${served.url}/runs`, { method: "OPTIONS", headers: { origin: "https://evil.example" } });
    expect(other.status).toBe(404);
    expect(other.headers.get("access-control-allow-origin")).toBeNull();
    const allowed = await postJson(
      `${served.url}/runs`,
      { prompt: "hi" },
      { headers: { origin: "https://app.example", "content-type": "application/json" } },
    );
    expect(allowed.headers.get("access-control-allow-origin")).toBe("https://app.example");
    expect(allowed.headers.get("access-control-expose-headers")).toBe("x-adaptor-run-id");
    await readUntil(sseMessages(allowed), (m) => m.data["type"] === "run-finished");
  });

  it("close() cancels runs in flight, ends their streams and refuses new runs with 503", async () => {
    served = await serve({ runner: referenceAgent() });
    const response = await postJson(`${served.url}/runs`, { prompt: "SLOW" });
    const messages = sseMessages(response);
    await readUntil(messages, (m) => m.data["type"] === "run-started");
    await served.bridge.close();
    const rest = await readUntil(messages, (m) => m.data["type"] === "run-finished");
    expect(rest.at(-1)!.data).toMatchObject({ type: "run-finished", ok: false });
    expect((served.settled[0]!.error as Error).name).toBe("AbortError");
    expect(served.bridge.size).toBe(0);
    const refused = await postJson(`${served.url}/runs`, { prompt: "hi" });
    expect(refused.status).toBe(503);
  });

  it("refuses unknown and ill-typed options with InvalidOptionError naming the field", () => {
    const agent = referenceAgent();
    const typo = (() => {
      try {
        new Bridge({ runner: agent, pingIntervalMS: 5 } as never);
      } catch (error) {
        return error;
      }
    })();
    expect(isError(typo, ErrInvalidOption)).toBe(true);
    expect(findError(typo, InvalidOptionError)).toMatchObject({ field: "pingIntervalMS", suggestion: "pingIntervalMs" });
    expect(() => new Bridge({ runner: {} as never })).toThrow(InvalidOptionError);
    expect(() => new Bridge({ runner: agent, cors: { origins: "*", credentials: true } })).toThrow(/credentials/);
    expect(() => new Bridge({ runner: agent, maxBodyBytes: 0 })).toThrow(/maxBodyBytes/);
  });

  it('refuses cors.origins entries that no browser Origin can equal, and "null", naming the entry', () => {
    const agent = referenceAgent();
    const refusal = (origins: string[]): InvalidOptionError | undefined => {
      try {
        new Bridge({ runner: agent, cors: { origins } });
      } catch (error) {
        return findError(error, InvalidOptionError);
      }
      return undefined;
    };
    const cases: [string, RegExp][] = [
      ["https://app.example/", /did you mean "https:\/\/app\.example"\?/],
      ["https://app.example/chat", /did you mean "https:\/\/app\.example"\?/],
      ["HTTPS://App.Example", /did you mean "https:\/\/app\.example"\?/],
      ["https://app.example:443", /did you mean "https:\/\/app\.example"\?/],
      ["*.example", /wildcard/],
      ["https://*.example", /wildcard/],
      ["null", /sandboxed iframe/],
      ["app.example", /is not an origin/],
      ["https://user@app.example", /is not an origin/],
    ];
    for (const [entry, reason] of cases) {
      const error = refusal(["https://ok.example", entry]);
      expect(error, entry).toMatchObject({ field: "cors.origins[1]" });
      expect(error?.reason, entry).toMatch(reason);
      expect(error?.message, entry).toContain(JSON.stringify(entry));
    }
    for (const origins of [["https://app.example", "http://localhost:5173", "http://[::1]:3000", "chrome-extension://abcdef"]])
      expect(refusal(origins)).toBeUndefined();
  });
});
