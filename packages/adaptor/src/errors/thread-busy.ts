import { AdaptorError, findError } from "@adaptor/errors";
import { BusyError } from "@adaptor/threadstore";
import { ErrThreadBusy } from "./sentinels.js";

/**
 * The root `ErrThreadBusy` error for a store's `BusyError` on `key`: its message names the holder
 * and when its lease lapses, and the store's error (with them as data) stays its cause.
 * `undefined` when `error` holds no `BusyError`.
 */
export function threadBusyError(key: string, error: unknown): AdaptorError | undefined {
  const busy = findError(error, BusyError);
  if (!busy) return undefined;
  const held =
    busy.owner !== undefined && busy.expiresAt ? ` (held by ${JSON.stringify(busy.owner)} until ${busy.expiresAt.toISOString()})` : "";
  return new AdaptorError(`thread ${key}: busy${held}`, { sentinel: ErrThreadBusy, cause: error });
}
