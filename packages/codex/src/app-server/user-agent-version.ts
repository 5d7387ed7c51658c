const VERSION = /^(\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?)(?:\s|$)/;
const ANY_VERSION = /\/(\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?)(?:\s|$)/;

/**
 * The codex version in app-server's `initialize` answer: its `userAgent` is
 * `<clientName>/<version> (<os>; <arch>) <terminal> (<clientName>; <client version>)`, e.g.
 * `adaptor/0.171.0 (Debian 12.0.0; x86_64) xterm (adaptor; 0.1.0)` (codex 0.124.0 through 0.171.0).
 *
 * @returns the `major.minor.patch[-prerelease]` right after `<clientName>/` (else after the first
 * `/` followed by one, for a client name codex rewrote), or undefined when there is none.
 */
export function versionOfUserAgent(userAgent: unknown, clientName: string): string | undefined {
  if (typeof userAgent !== "string") return undefined;
  if (userAgent.startsWith(`${clientName}/`)) return VERSION.exec(userAgent.slice(clientName.length + 1))?.[1];
  return ANY_VERSION.exec(userAgent)?.[1];
}
