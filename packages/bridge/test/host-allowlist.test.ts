import { createServer, type Server } from "node:http";
import { connect, type AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { ErrInvalidOption, isError } from "adaptor";
import { Bridge } from "../src/index.js";
import { postJson, rawRequest, readUntil, referenceAgent, serve, sseMessages, type Served } from "./support.js";

// DNS rebinding: a page on a name the attacker controls (evil.example), made to resolve to
// 127.0.0.1, calls the bridge as its own origin. Its requests carry `Host: evil.example:<port>`
// and a matching `Origin`, so only the Host allowlist tells them apart.

let served: Served | undefined;
afterEach(async () => {
  await served?.close();
  served = undefined;
});

/** A request with a forged Host header (fetch cannot set Host). */
function withHost(
  url: string,
  path: string,
  host: string,
  init: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<{ status: number; body: Record<string, unknown> }> {
  return rawRequest(url, path, { ...init, headers: { ...init.headers, host } });
}

const portOf = (url: string): number => Number(new URL(url).port);

describe("Host allowlist (DNS rebinding)", () => {
  it("a forged Host is 403 forbidden_host on every route even with a matching Origin: no run starts and the pending approval stays pending", async () => {
    served = await serve({ runner: referenceAgent() });
    const port = portOf(served.url);
    const response = await postJson(`${served.url}/runs`, { prompt: "TOOL deploy" });
    const key = response.headers.get("x-adaptor-run-id")!;
    const messages = sseMessages(response);
    const asked = (await readUntil(messages, (m) => m.data["type"] === "approval-request")).at(-1)!;
    const id = String((asked.data["request"] as { id: string }).id);
    const hosts = [
      `evil.example:${port}`,
      `localhost.evil.example:${port}`,
      `127.0.0.1.evil.example:${port}`,
      `127.0.0.1.nip.io:${port}`,
      `localhost.:${port}`,
      `2130706433:${port}`,
      `127.1:${port}`,
      `0.0.0.0:${port}`,
      `[::ffff:127.0.0.1]:${port}`,
      `localhost:${port + 1}`,
      `127.0.0.1:${port === 80 ? 81 : 80}`,
      "127.0.0.1",
      `127.0.0.1:${port}@evil.example`,
      `evil.example:${port}, 127.0.0.1:${port}`,
    ];
    const json = { "content-type": "application/json" };
    for (const host of hosts) {
      const origin = `http://${host}`;
      const attempts = [
        withHost(served.url, "/runs", host, { headers: { ...json, origin }, body: JSON.stringify({ prompt: "TOOL exfiltrate" }) }),
        withHost(served.url, "/ag-ui", host, {
          headers: { ...json, origin },
          body: JSON.stringify({
            threadId: "t",
            runId: "r",
            state: {},
            messages: [{ id: "m", role: "user", content: "hi" }],
            tools: [],
            context: [],
            forwardedProps: {},
          }),
        }),
        withHost(served.url, `/approvals/${id}`, host, { headers: { ...json, origin }, body: JSON.stringify({ decision: "approve" }) }),
        withHost(served.url, `/runs/${key}/events`, host, { method: "GET" }),
        withHost(served.url, "/runs", host, { method: "OPTIONS", headers: { origin, "access-control-request-method": "POST" } }),
      ];
      for (const answer of await Promise.all(attempts)) {
        expect([host, answer.status]).toEqual([host, 403]);
        expect(answer.body).toMatchObject({ error: { code: "forbidden_host", message: expect.stringContaining("DNS rebinding") } });
      }
    }
    expect(served.bridge.size).toBe(1);
    expect(served.settled).toEqual([]);
    // The approval was not answered by any of them: the page's own answer still wins.
    const own = await postJson(`${served.url}/approvals/${id}`, { decision: "deny" });
    expect(await own.json()).toEqual({ id, status: "denied" });
    expect((await readUntil(messages, (m) => m.data["type"] === "run-finished")).at(-1)!.data).toMatchObject({ ok: true });
  });

  it("loopback names on the listening port pass (any case, with their own Origin), and so do allowedHosts entries", async () => {
    served = await serve({ runner: referenceAgent(), allowedHosts: ["chat.example.com", "https://app.example:8443"] });
    const port = portOf(served.url);
    const json = { "content-type": "application/json" };
    for (const host of [
      `127.0.0.1:${port}`,
      `localhost:${port}`,
      `LocalHost:${port}`,
      `[::1]:${port}`,
      "chat.example.com",
      "chat.example.com:9999",
      "app.example:8443",
    ]) {
      const answer = await withHost(served.url, "/runs/unknown/events", host, {
        method: "GET",
        headers: { origin: `http://${host.toLowerCase()}` },
      });
      expect([host, answer.status]).toEqual([host, 404]);
    }
    for (const host of ["app.example", "app.example:443", "evil.chat.example.com"]) {
      const answer = await withHost(served.url, "/runs", host, { headers: json, body: JSON.stringify({ prompt: "hi" }) });
      expect([host, answer.status]).toEqual([host, 403]);
    }
    expect(served.bridge.size).toBe(0);
  });

  it("a request without a Host header (HTTP/1.0 on a server that allows it) is 403 forbidden_host", async () => {
    const bridge = new Bridge({ runner: referenceAgent() });
    const server: Server = createServer({ requireHostHeader: false }, bridge.handler);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const body = JSON.stringify({ prompt: "hi" });
      const socket = connect((server.address() as AddressInfo).port, "127.0.0.1");
      socket.end(`POST /runs HTTP/1.0\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
      const chunks: Buffer[] = [];
      for await (const chunk of socket) chunks.push(chunk as Buffer);
      const text = Buffer.concat(chunks).toString("utf8");
      expect(text).toMatch(/^HTTP\/1\.1 403 /);
      expect(text).toContain('"code":"forbidden_host"');
      expect(bridge.size).toBe(0);
    } finally {
      await bridge.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it('allowedHosts "*" turns the check off; an entry that is no host is an InvalidOptionError', async () => {
    served = await serve({ runner: referenceAgent(), allowedHosts: "*" });
    const answer = await withHost(served.url, "/runs/unknown/events", "anything.example", { method: "GET" });
    expect(answer.status).toBe(404);
    for (const allowedHosts of [["https://app.example/path"], ["not a host"], [""], "all"]) {
      let caught: unknown;
      try {
        new Bridge({ runner: referenceAgent(), allowedHosts: allowedHosts as string[] });
      } catch (error) {
        caught = error;
      }
      expect(isError(caught, ErrInvalidOption)).toBe(true);
    }
  });
});
