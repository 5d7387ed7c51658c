import type { IncomingMessage } from "node:http";
import { HttpError } from "./http-error.js";

/** The 403 `forbidden_host` refusal of a request whose `Host` failed `hostAllowed` (from `adaptor`). */
export function forbiddenHost(req: IncomingMessage): HttpError {
  const host = req.headers.host;
  return new HttpError(
    403,
    "forbidden_host",
    `${host === undefined ? "a request without a Host header" : `host ${JSON.stringify(host.slice(0, 200))}`} is not served here: ` +
      `only 127.0.0.1, localhost and [::1] on port ${String(req.socket.localPort)} and the hosts in allowedHosts are ` +
      "(a page reaching this server through another name, as DNS rebinding does, is refused)",
  );
}
