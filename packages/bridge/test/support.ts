import { createServer, request as httpRequest, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createParser, type EventSourceMessage } from "eventsource-parser";
import { ReferenceDriver } from "@adaptor/driver/testing";
import { Agent, type AgentOptions } from "adaptor";
import { Bridge, type BridgeOptions, type BridgeRunSettled } from "../src/index.js";

/** A bridge on an HTTP server on 127.0.0.1, and the verdicts it reported. */
export interface Served {
  readonly bridge: Bridge;
  readonly url: string;
  readonly settled: BridgeRunSettled[];
  /** Resolves with the verdict of run `key` once it settled. */
  settledRun(key: string): Promise<BridgeRunSettled>;
  close(): Promise<void>;
}

export async function serve(options: Omit<BridgeOptions, "onRunSettled">): Promise<Served> {
  const settled: BridgeRunSettled[] = [];
  const waiters: (() => void)[] = [];
  const bridge = new Bridge({
    ...options,
    onRunSettled: (run) => {
      settled.push(run);
      for (const wake of waiters.splice(0)) wake();
    },
  });
  const server: Server = createServer(bridge.handler);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    bridge,
    url,
    settled,
    async settledRun(key) {
      for (;;) {
        const found = settled.find((run) => run.key === key);
        if (found) return found;
        await new Promise<void>((resolve) => waiters.push(resolve));
      }
    },
    async close() {
      await bridge.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** An Agent on the scripted reference driver (prompts `TOOL <cmd>`, `SLOW`, `FAIL <message>` script it). */
export function referenceAgent(options: AgentOptions = {}): Agent {
  return new Agent(new ReferenceDriver({ latencyMs: 0 }), options);
}

/** A parsed SSE event whose data is JSON. */
export interface SseMessage {
  readonly id: string | undefined;
  readonly event: string | undefined;
  readonly data: Record<string, unknown>;
}

/**
 * Reads an SSE response with eventsource-parser: yields each event with its data parsed as JSON,
 * and the comments (pings) through `onComment`.
 */
export async function* sseMessages(response: Response, onComment?: (comment: string) => void): AsyncGenerator<SseMessage> {
  if (!response.body) throw new Error("no body");
  const queue: EventSourceMessage[] = [];
  const parser = createParser({ onEvent: (event) => queue.push(event), ...(onComment ? { onComment } : {}) });
  const decoder = new TextDecoder();
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
    parser.feed(decoder.decode(chunk, { stream: true }));
    while (queue.length > 0) {
      const event = queue.shift()!;
      yield { id: event.id, event: event.event, data: JSON.parse(event.data) as Record<string, unknown> };
    }
  }
}

/** POSTs JSON. */
export function postJson(url: string, body: unknown, init: RequestInit = {}): Promise<Response> {
  return fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "text/event-stream" },
    body: JSON.stringify(body),
    ...init,
  });
}

/** Reads `messages` until `stop` matches one (included); returns what was read. */
export async function readUntil(messages: AsyncGenerator<SseMessage>, stop: (message: SseMessage) => boolean): Promise<SseMessage[]> {
  const read: SseMessage[] = [];
  for (;;) {
    const next = await messages.next();
    if (next.done) return read;
    read.push(next.value);
    if (stop(next.value)) return read;
  }
}

/** A raw HTTP request (fetch cannot send a malformed path, a POST without content type, or a forged Host header). */
export function rawRequest(
  url: string,
  path: string,
  init: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<{ status: number; body: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${url}${path}`, { method: init.method ?? "POST", headers: init.headers ?? {} }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () => {
        const text = Buffer.concat(chunks).toString("utf8");
        resolve({ status: res.statusCode ?? 0, body: text.startsWith("{") ? (JSON.parse(text) as Record<string, unknown>) : { text } });
      });
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end(init.body);
  });
}
