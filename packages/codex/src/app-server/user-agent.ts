import { parseVersion } from "@adaptor/driver/kit";

/**
 * The codex version in the `userAgent` of app-server's answer to `initialize`:
 * `<originator>/<codex version> (<os> <os version>; <arch>) <terminal> (<client name>; <client version>)`
 * (codex 0.170.0 and 0.171.0; the originator is the `clientInfo.name` sent, spaces kept). Read
 * right after `<clientName>/`, else after the first `/` that a version follows; never the client's
 * own version at the end. Undefined when `userAgent` is missing or names no version there.
 */
export function userAgentVersion(userAgent: string | undefined, clientName: string): string | undefined {
  if (userAgent === undefined) return undefined;
  const rest = userAgent.startsWith(`${clientName}/`)
    ? userAgent.slice(clientName.length + 1)
    : /\/(v?\d+\.\d+\.\d+\S*)/.exec(userAgent)?.[1];
  if (rest === undefined) return undefined;
  const token = rest.split(/\s/, 1)[0] ?? "";
  return parseVersion(token);
}
