import { AdaptorError } from "@adaptor/errors";
import { ErrJSONLEventBackendClosed } from "./sentinels.js";

/** The error for an operation after `close()`: an AdaptorError matching {@link ErrJSONLEventBackendClosed}. */
export function closedError(what: string, op: string): AdaptorError {
  return new AdaptorError(`${op}: ${what} is closed`, { sentinel: ErrJSONLEventBackendClosed });
}
