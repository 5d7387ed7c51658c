import { threadKeyProblem } from "adaptor";
import { HttpError } from "../http/http-error.js";

/** Longest id the bridge takes from a client (AG-UI `runId`, `threadId`, `raw` `threadKey`, approval ids), in characters. */
export const MAX_WIRE_ID_LENGTH = 256;

/**
 * Checks an id a client sent: non-empty, at most {@link MAX_WIRE_ID_LENGTH} characters, no control
 * character or lone UTF-16 surrogate; `visibleAscii` (an id that goes into a response header, as
 * the AG-UI `runId` does in `x-adaptor-run-id`) allows printable ASCII without spaces only;
 * `pathSegment` (an id that names a run in the routes, `/runs/<id>/events`, as the AG-UI `runId`
 * does) refuses `.` and `..`, which a URL resolves away (every route to such a run would be refused);
 * `threadKey` (an id the runner gets as its thread key: the raw `threadKey`, the AG-UI `threadId`)
 * also holds it to the SDK's thread key rules (`threadKeyProblem` from `adaptor`, the rule
 * `agent.thread()` applies): not whitespace only, no bidi control, at most 1024 bytes of UTF-8.
 * @throws HttpError 400 `invalid_id` naming the field and the rule.
 */
export function checkWireId(
  field: string,
  value: string,
  options: { readonly visibleAscii?: boolean; readonly pathSegment?: boolean; readonly threadKey?: boolean } = {},
): string {
  const problem =
    value.length === 0
      ? "is empty"
      : value.length > MAX_WIRE_ID_LENGTH
        ? `is ${value.length} characters long; the limit is ${MAX_WIRE_ID_LENGTH}`
        : options.visibleAscii && !/^[\x21-\x7e]+$/.test(value)
          ? "may hold printable ASCII characters only (no spaces)"
          : /\p{Cc}|\p{Cs}/u.test(value)
            ? "holds a control character or a lone UTF-16 surrogate"
            : options.pathSegment && (value === "." || value === "..")
              ? `may not be "${value}" (it names the run in the URLs of its routes)`
              : options.threadKey
                ? threadKeyProblem(value)
                : undefined;
  if (problem !== undefined) throw new HttpError(400, "invalid_id", `${field} ${problem}`);
  return value;
}
