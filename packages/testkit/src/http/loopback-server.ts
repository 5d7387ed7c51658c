import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** The plumbing every scripted model server shares: a 127.0.0.1 listener, cancellable delays, close. */
export interface LoopbackServer {
  /** `http://127.0.0.1:<port>`, no trailing slash. */
  readonly url: string;
  /** Resolves true after `ms`, or false at once when the client goes away or the server closes. */
  wait(ms: number, res: ServerResponse): Promise<boolean>;
  /** Cancels pending delays, closes every connection (keep-alive too); idempotent, no timer left. */
  close(): Promise<void>;
}

/**
 * Listens on 127.0.0.1 with an ephemeral port. `handle` serves each request; when it throws,
 * `onError` answers (or the socket is destroyed once headers went out).
 */
export async function startLoopbackServer(
  handle: (req: IncomingMessage, res: ServerResponse, server: LoopbackServer) => Promise<void>,
  onError: (res: ServerResponse, err: unknown) => void,
): Promise<LoopbackServer> {
  const cancels = new Set<() => void>();
  let closing: Promise<void> | undefined;
  const server = createServer((req, res) => {
    handle(req, res, loopback).catch((err: unknown) => {
      if (res.headersSent || res.destroyed) res.destroy();
      else onError(res, err);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      server.off("error", reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const loopback: LoopbackServer = {
    url: `http://127.0.0.1:${port}`,
    wait(ms, res) {
      if (!(ms > 0)) return Promise.resolve(!res.destroyed);
      return new Promise((resolve) => {
        const done = (ok: boolean): void => {
          clearTimeout(timer);
          cancels.delete(cancel);
          res.off("close", cancel);
          resolve(ok);
        };
        const cancel = (): void => done(false);
        const timer = setTimeout(() => done(true), ms);
        cancels.add(cancel);
        res.once("close", cancel);
      });
    },
    close() {
      closing ??= new Promise<void>((resolve) => {
        for (const cancel of [...cancels]) cancel();
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closing;
    },
  };
  return loopback;
}

/** Request headers with lower-case names; the values of `secret` ones read `"<set>"`. */
export function loggedHeaders(req: IncomingMessage, secret: ReadonlySet<string>): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    headers[name] = secret.has(name) ? "<set>" : Array.isArray(value) ? value.join(", ") : value;
  }
  return headers;
}

/** The request body: parsed JSON, `undefined` when empty, the raw text when it is not JSON. */
export async function readBody(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString("utf8");
  if (text === "") return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/** `err` as one line for an error body. */
export function describe(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/**
 * The reply of the first rule whose `when` matches `view`, else `fallback(view)`. A rule that
 * throws answers `thrown(message)` (an HTTP 500 in the server's dialect) naming the rule.
 */
export function chooseReply<V, R>(
  rules: readonly { readonly name?: string; readonly when: (view: V) => boolean; readonly reply: R | ((view: V) => R) }[],
  view: V,
  fallback: (view: V) => R,
  thrown: (message: string) => R,
): { reply: R; rule: string } {
  for (const [index, rule] of rules.entries()) {
    const name = rule.name ?? `rules[${index}]`;
    try {
      if (!rule.when(view)) continue;
      return { reply: typeof rule.reply === "function" ? (rule.reply as (view: V) => R)(view) : rule.reply, rule: name };
    } catch (err) {
      return { reply: thrown(`scripted rule ${name} threw: ${describe(err)}`), rule: name };
    }
  }
  return { reply: fallback(view), rule: "directive" };
}
