import type { IncomingMessage, ServerResponse } from "node:http";

/**
 * True when `req` announces a body: a `transfer-encoding`, or a `content-length` other than 0.
 * @param req the request, as Node's `http` server hands it over.
 */
export function announcesBody(req: IncomingMessage): boolean {
  const length = req.headers["content-length"];
  return req.headers["transfer-encoding"] !== undefined || (length !== undefined && length.trim() !== "0");
}

/**
 * Makes a response that starts while the body of `req` is still arriving (a refusal answered
 * without reading it, a 404, an agent card served to a request that carries a body) close its
 * connection: the response goes out with `Connection: close` and the socket is closed once the
 * response is written, so the rest of the body is never waited for. Without this, Node keeps
 * such a connection open after the answer for as long as the client sends the rest of the body,
 * so a client trickling a long body byte by byte holds it open past any body deadline.
 * A request whose body is complete when the response starts (or that has none) keeps its
 * keep-alive connection. Call it when the request arrives, before anything answers it.
 * @param req the request, as Node's `http` server hands it over.
 * @param res its response; its `writeHead` is wrapped for this one response.
 */
export function closeIfBodyUnread(req: IncomingMessage, res: ServerResponse): void {
  if (req.complete || !announcesBody(req)) return;
  const writeHead = res.writeHead;
  // Every way of starting a response (writeHead, write, end, flushHeaders) goes through writeHead.
  res.writeHead = function (this: ServerResponse, ...args: unknown[]) {
    if (!req.complete && !this.headersSent) this.shouldKeepAlive = false;
    return (writeHead as (...rest: unknown[]) => ServerResponse).apply(this, args);
  } as ServerResponse["writeHead"];
  res.once("finish", () => {
    if (!req.complete) req.socket.destroySoon();
  });
}
