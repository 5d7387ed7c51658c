import type { IncomingMessage } from "node:http";
import type { TLSSocket } from "node:tls";

/** Names that reach this machine's loopback interface whatever any DNS server says. */
const LOOPBACK_NAMES: ReadonlySet<string> = new Set(["127.0.0.1", "localhost", "[::1]"]);

/** A `Host` header: a DNS name, an IPv4 address or a bracketed IPv6 address, then an optional port. */
const HOST_SYNTAX = /^(\[[0-9a-f:.]+\]|[a-z0-9_.-]+)(?::(\d{1,5}))?$/;

/** One `allowedHosts` entry: a name with an optional port (no port: any port). */
export interface HostRule {
  /** The host name, lowercase (a bracketed IPv6 address keeps its brackets). */
  readonly name: string;
  /** The port; undefined: any port. */
  readonly port: number | undefined;
}

/** The name and port of a `Host` header value (lowercase), or undefined when it is not one. */
function parseHost(value: string, defaultPort: number | undefined): HostRule | undefined {
  const match = HOST_SYNTAX.exec(value.trim().toLowerCase());
  if (!match) return undefined;
  const port = match[2] === undefined ? defaultPort : Number(match[2]);
  return { name: match[1]!, port };
}

/**
 * Turns `allowedHosts` entries (`"chat.example.com"`, `"chat.example.com:8443"`,
 * `"https://chat.example.com"`) into rules; undefined for an entry that is none of these.
 */
export function hostRule(entry: string): HostRule | undefined {
  let text = entry.trim();
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(text)) {
    try {
      const url = new URL(text);
      if (url.pathname !== "/" || url.search !== "" || url.hash !== "" || url.username !== "") return undefined;
      text = url.port === "" ? url.hostname : `${url.hostname}:${url.port}`;
    } catch {
      return undefined;
    }
  }
  return parseHost(text, undefined);
}

/**
 * Whether the `Host` header of `req` names this server: a loopback name (`127.0.0.1`,
 * `localhost`, `[::1]`) with the port the request arrived on, or a host `allowedHosts` lists
 * (an entry without a port matches any port). `"*"` turns the check off. A missing or malformed
 * `Host` is refused. This is what stops DNS rebinding: a page on `evil.example` whose name the
 * attacker made resolve to 127.0.0.1 talks to this server as its own origin, but its requests
 * carry `Host: evil.example`.
 */
export function hostAllowed(req: IncomingMessage, allowedHosts: readonly string[] | "*" = []): boolean {
  if (allowedHosts === "*") return true;
  const header = req.headers.host;
  if (typeof header !== "string") return false;
  const defaultPort = (req.socket as Partial<TLSSocket>).encrypted ? 443 : 80;
  const host = parseHost(header, defaultPort);
  if (!host) return false;
  if (LOOPBACK_NAMES.has(host.name) && host.port === req.socket.localPort) return true;
  return allowedHosts.some((entry) => {
    const rule = hostRule(entry);
    return rule !== undefined && rule.name === host.name && (rule.port === undefined || rule.port === host.port);
  });
}
