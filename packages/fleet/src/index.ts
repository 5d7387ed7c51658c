// Public surface of @adaptor/fleet.
export {
  Fleet,
  type SubmitOptions,
  type FleetRunOptions,
  type FleetApproval,
  type FleetWaitingApproval,
  type FleetPendingApprovalsOptions,
  type FleetPruneOptions,
} from "./fleet/fleet.js";
export type { FleetOptions } from "./fleet/fleet-options.js";
export type { FleetApprovalDecision } from "./fleet/check-submit.js";
export { RunHandle, type RunEventsOptions, type FleetPendingApproval, type FleetRunInfo } from "./run/run-handle.js";
export type { FleetEvent, FleetEventBody, AttemptStartedEvent, VerdictEvent, RecordedAgentEvent } from "./run/fleet-event.js";
export type { FleetWorkerOptions, WorkerAgent, WorkerContext } from "./worker/fleet-worker.js";
export type { StoredVerdict, StoredResult, FleetResult } from "./verdict/verdict.js";
export {
  FleetQueueFullError,
  FleetAttemptsExhaustedError,
  FleetRunNotFoundError,
  FleetRunExistsError,
  FleetClosedError,
  FleetRunCancelledError,
  FleetRemoteError,
  FleetRunExpiredError,
  type StoredError,
} from "./errors/fleet-errors.js";
export {
  ErrFleetQueueFull,
  ErrFleetAttemptsExhausted,
  ErrFleetRunNotFound,
  ErrFleetRunExists,
  ErrFleetClosed,
  ErrFleetRunCancelled,
  ErrFleetRemote,
  ErrFleetRunExpired,
} from "./errors/sentinels.js";
