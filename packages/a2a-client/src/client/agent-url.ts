import { InvalidOptionError } from "@adaptor/errors";
import { isCredentialParam } from "@adaptor/errors/internal";
import { redactCredentials } from "../errors/sanitize.js";

/**
 * `url` parsed as the URL of a remote agent (its card, or the base the card is found below).
 *
 * Credentials in its userinfo (`https://user:pw@host/`) are refused: `fetch` cannot send such a
 * URL, and the password would ride along in every message that names it. They go in the `headers`
 * option instead (e.g. `authorization: "Basic …"`).
 *
 * @param subject what takes the URL, e.g. `"A2AClient.connect()"`, for the error.
 * @throws TypeError for a string that is not an absolute http or https URL;
 *   InvalidOptionError (field `url`) for one with credentials, naming it with them redacted.
 */
export function agentUrl(url: string, subject: string): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    // Not the URL parser's error, and not the text: either may hold a credential (the parser keeps it on `input`).
    throw new TypeError("A2A card URL must be an absolute http or https URL");
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:")
    throw new TypeError(`A2A card URL must be http or https, got ${parsed.protocol}`);
  if (parsed.username === "" && parsed.password === "") return parsed;
  throw new InvalidOptionError({
    subject,
    field: "url",
    reason: `must not carry credentials (user:password@); send them in headers, e.g. { authorization: "Basic …" }; got ${redactCredentials(parsed.href)}`,
  });
}

/**
 * The values of `url`'s query parameters whose names say credential (`api_key`, `access_token`,
 * `sig`, …): the client redacts them wherever a remote echoes them, as it does its header values.
 */
export function urlSecrets(url: URL): string[] {
  return [...url.searchParams].filter(([name, value]) => value !== "" && isCredentialParam(name)).map(([, value]) => value);
}
