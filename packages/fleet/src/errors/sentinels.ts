import { sentinel } from "@adaptor/errors";

// Fleet identities (docs/errors.md "Fleet errors").

/** `submit` was refused: the fleet already holds its configured number of unfinished runs. */
export const ErrFleetQueueFull = sentinel("adaptor.fleet.QueueFull", "fleet queue full");
/** A run was attempted the configured number of times, each attempt lost with its worker. */
export const ErrFleetAttemptsExhausted = sentinel("adaptor.fleet.AttemptsExhausted", "fleet run attempts exhausted");
/** No run with that id is known to the fleet (never submitted, or removed by retention). */
export const ErrFleetRunNotFound = sentinel("adaptor.fleet.RunNotFound", "fleet run not found");
/** An operation was attempted after `close()` (or while draining, for `submit` and `worker`). */
export const ErrFleetClosed = sentinel("adaptor.fleet.Closed", "fleet closed");
/** The run was cancelled through its handle (from any host) before it had a verdict. */
export const ErrFleetRunCancelled = sentinel("adaptor.fleet.RunCancelled", "fleet run cancelled");
/** The run's verdict was an error raised on the worker; this error carries its stored form. */
export const ErrFleetRemote = sentinel("adaptor.fleet.Remote", "error on a fleet worker");
/** `submit` was given a `runId` that a run of the fleet already has; nothing was stored. */
export const ErrFleetRunExists = sentinel("adaptor.fleet.RunExists", "fleet run id in use");
/**
 * The run waited unstarted past its queue deadline (no worker of its run format took it in time);
 * it never starts. Its verdict carries `ErrCode` `TIMEOUT`.
 */
export const ErrFleetRunExpired = sentinel("adaptor.fleet.RunExpired", "fleet run not started before its queue deadline");
