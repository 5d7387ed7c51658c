// `adaptor/internal`: plumbing shared by the SDK's own packages. Not a stable API: no semver
// promise, and not part of the documented surface.

export { sniffImageType } from "./prompt/sniff-image-type.js";
export {
  askFactsOf,
  decisionRefusal,
  DEFAULT_DENY_REASON,
  EDIT_UNSUPPORTED_REASON,
  updatedInputError,
  type ApprovalAskFacts,
} from "./approval/approval-request.js";
export { rememberError } from "./approval/approval-rule.js";
export { JSON_DEPTH_MAX, nestsDeeperThan } from "@adaptor/driver/kit";
