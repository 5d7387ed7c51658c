// DNS rebinding: a page on another name that resolves to this machine reaches the A2A server as its
// own origin, but its requests carry its own `Host`. The server answers only its `url`'s host,
// loopback names on its port and `allowedHosts`; everything else is 403 before anything runs.
import { request } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import { InvalidOptionError } from "@adaptor/errors";
import { Agent } from "adaptor";
import { ReferenceDriver } from "@adaptor/driver/testing";
import { a2aServer } from "../src/index.js";
import { serve, type Served } from "./support.js";

let served: Served | undefined;
afterEach(async () => {
  await served?.close();
  served = undefined;
});

/** POSTs a JSON-RPC `message/send` with `host` as the Host header; resolves the status and body. */
function send(url: string, host: string | undefined): Promise<{ status: number; body: string }> {
  const body = JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "SendMessage",
    params: { message: { messageId: "m1", role: "ROLE_USER", parts: [{ text: "hello" }] } },
  });
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        hostname,
        port,
        path: "/",
        method: "POST",
        setHost: false,
        headers: { "content-type": "application/json", "a2a-version": "1.0", ...(host === undefined ? {} : { host }) },
      },
      (res) => {
        let text = "";
        res.on("data", (chunk: Buffer) => (text += chunk.toString()));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text }));
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

describe("A2A server Host check", () => {
  it("refuses another name (403, nothing run) and answers loopback names on its port", async () => {
    served = await serve();
    const port = new URL(served.url).port;
    for (const host of ["evil.example", `evil.example:${port}`, `localhost:1`, "bad host"]) {
      expect(await send(served.url, host)).toEqual({ status: 403, body: JSON.stringify({ error: "forbidden host" }) });
    }
    // No Host at all: Node's HTTP server itself refuses an HTTP/1.1 request without one.
    expect((await send(served.url, undefined)).status).toBe(400);
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`]) {
      const answer = await send(served.url, host);
      expect(answer.status).toBe(200);
      expect(JSON.parse(answer.body)).toMatchObject({ result: { task: { status: { state: "TASK_STATE_COMPLETED" } } } });
    }
  });

  it("answers the host of its public url and the allowedHosts entries; '*' turns the check off", async () => {
    served = await serve(undefined, { url: "https://agents.example.com/reviewer", allowedHosts: ["internal.example:8443"] });
    expect((await send(served.listening.url, "agents.example.com")).status).toBe(200);
    expect((await send(served.listening.url, "internal.example:8443")).status).toBe(200);
    expect((await send(served.listening.url, "internal.example:9000")).status).toBe(403);
    await served.close();
    served = await serve(undefined, { allowedHosts: "*" });
    expect((await send(served.url, "anything.example")).status).toBe(200);
  });

  it("refuses an allowedHosts entry that is not a host at construction", () => {
    const agent = new Agent(new ReferenceDriver());
    const make = () =>
      a2aServer(agent, { url: "http://127.0.0.1:1", card: { name: "n", description: "d" }, allowedHosts: ["http://x/path"] });
    expect(make).toThrow(InvalidOptionError);
    expect(make).toThrow(/allowedHosts\[0\]/);
  });
});
