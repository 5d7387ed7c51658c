export {
  describeThreadStoreConformance,
  type ConformanceClock,
  type ConformanceHarness,
  type ConformanceOptions,
  type MakeConformanceStore,
  type MakeStoreOptions,
} from "./conformance.js";
export { FaultPlan } from "./fault-plan.js";
export { ManualClock } from "./manual-clock.js";
export { leaseHammer, hammerWorkerMain, checkHammerReports, runHammerWorkers, type HammerReport } from "./lease-hammer.js";
export { describePendingApprovalsConformance } from "./pending-approvals-conformance.js";
export { describeThreadCatalogConformance } from "./thread-catalog-conformance.js";
export { describeSegmentsFromConformance } from "./segments-from-conformance.js";
export { checkSegmentSummary, checkSummarySeesLoss, type LoseSegment } from "./segment-summary-check.js";
export { hostileSegmentStore, type HostileSegmentStoreOptions, type SegmentDamage } from "./hostile-segment-store.js";
