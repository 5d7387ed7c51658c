import type { ApprovalMode } from "../../spi/descriptor.js";
import type { NoticeEvent } from "../../spi/events.js";

/**
 * The `notice` (kind `approval.mode`, `data.permission`) a driver emits the moment a host's
 * `permission` switch (`TurnControl.setApprovalMode`) took effect on its CLI: the SDK judges the
 * tool calls that start after it by that mode.
 */
export function approvalModeNotice(permission: ApprovalMode): NoticeEvent {
  return {
    type: "notice",
    kind: "approval.mode",
    message: `approvals.permission ${JSON.stringify(permission)} in effect on the CLI`,
    data: { permission },
  };
}
