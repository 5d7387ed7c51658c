// Pins the runtime export lists of @adaptor/threadstore and @adaptor/threadstore/testing, so a change
// of surface shows in review (type-only exports are not runtime keys).
import { describe, expect, it } from "vitest";

describe("public surface", () => {
  it("@adaptor/threadstore", async () => {
    expect(Object.keys(await import("@adaptor/threadstore")).sort()).toEqual([
      "AlreadyExistsError",
      "ApprovalNotPendingError",
      "BusyError",
      "DEADLINE_PASSED_REASON",
      "DEFAULT_THREAD_PAGE_LIMIT",
      "ErrAlreadyExists",
      "ErrApprovalNotPending",
      "ErrBusy",
      "ErrInvalidThreadKey",
      "ErrLeaseLost",
      "ErrSessionStateTooLarge",
      "InvalidThreadKeyError",
      "LeaseLostError",
      "MAX_THREAD_KEY_BYTES",
      "MAX_THREAD_PAGE_LIMIT",
      "MemoryThreadStore",
      "ReleasedLeases",
      "SEGMENT_CHECKSUM_MODULUS",
      "SessionStateTooLargeError",
      "checkApprovalId",
      "checkFinalizeRequest",
      "checkLease",
      "checkLeaseArgs",
      "checkListThreadsQuery",
      "checkPendingApprovalDraft",
      "checkResolveQuery",
      "checkSegmentIndex",
      "checkSessionStateWrite",
      "checkStoredDecision",
      "checkThreadKey",
      "checkTtl",
      "checksumTerm",
      "compareKeys",
      "segmentSummaryAfter",
      "segmentTag",
      "sessionStateBytesAfter",
      "storedDeadline",
      "supportsPendingApprovals",
      "supportsThreadCatalog",
      "threadKeyProblem",
    ]);
  });

  it("@adaptor/threadstore/testing", async () => {
    expect(Object.keys(await import("@adaptor/threadstore/testing")).sort()).toEqual([
      "FaultPlan",
      "ManualClock",
      "checkHammerReports",
      "checkSegmentSummary",
      "checkSummarySeesLoss",
      "describePendingApprovalsConformance",
      "describeSegmentsFromConformance",
      "describeThreadCatalogConformance",
      "describeThreadStoreConformance",
      "hammerWorkerMain",
      "hostileSegmentStore",
      "leaseHammer",
      "runHammerWorkers",
    ]);
  });
});
