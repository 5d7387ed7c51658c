/** Names of the spans the SDK records (docs/observability.md lists their attributes). */
export const SPAN = Object.freeze({
  run: "adaptor.run",
  spawn: "adaptor.spawn",
  toolCall: "adaptor.tool_call",
  approval: "adaptor.approval",
  leaseAcquire: "adaptor.lease.acquire",
  leaseRenew: "adaptor.lease.renew",
  leaseFinalize: "adaptor.lease.finalize",
  structuredOutput: "adaptor.structured_output.validate",
});
