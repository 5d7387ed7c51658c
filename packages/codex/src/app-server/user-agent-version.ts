/**
 * The codex version in app-server's `initialize` answer: its `userAgent` is
 * `<clientName>/<version> (<os>; <arch>) <terminal> (<clientName>; <client version>)`, e.g.
 * `adaptor/0.171.0 (Debian 12.0.0; x86_64) xterm (adaptor; 0.1.0)` (codex 0.124.0 through 0.171.0).
 *
 * @returns the `major.minor.patch[-prerelease]` right after `<clientName>/`, or undefined when the
 * answer is not shaped so.
 */
export function versionOfUserAgent(userAgent: unknown, clientName: string): string | undefined {
  if (typeof userAgent !== "string" || !userAgent.startsWith(`${clientName}/`)) return undefined;
  return /^(\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?)(?:\s|$)/.exec(userAgent.slice(clientName.length + 1))?.[1];
}
