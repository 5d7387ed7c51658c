export {
  describeDriverConformance,
  type DriverConformanceOptions,
  type DriverFixture,
  type ScriptedTurn,
  type ScriptedTurns,
  type StructuredTurn,
} from "./describe-driver-conformance.js";
export { createRecordingSink, type RecordingSink, type RecordedEvent, type ApprovalPolicyFn } from "./recording-sink.js";
export { runDriver, type RunDriverOptions, type DriverRun } from "./run-driver.js";
export { ReferenceDriver, REFERENCE_DESCRIPTOR, REFERENCE_SCRIPTS, type ReferenceDriverConfig } from "./reference-driver.js";
export { describeVersionFloor, type VersionFloorCases, type PrewarmingDriver } from "./describe-version-floor.js";
