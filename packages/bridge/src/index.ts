// Public surface of `@adaptor/bridge`: a Runner over HTTP with Server-Sent Events.

export { Bridge, type BridgeHandler } from "./bridge/bridge.js";
export type { BridgeOptions, BridgeRunner, BridgeProtocol, BridgeRunContext, BridgeRunSettled } from "./bridge/bridge-options.js";
export type { CorsOptions } from "./http/cors.js";
export type { BridgeFleet, BridgeFleetRun, BridgeFleetEvent } from "./fleet/bridge-fleet.js";
export { AG_UI_FRAMES_PER_EVENT } from "./fleet/fleet-frames.js";
export { hostAllowed } from "adaptor";
export type { BridgeErrorCode } from "./http/http-error.js";
export type { ApprovalAnswer, BridgeResume } from "./approvals/answer-approval.js";
export type { WireApproval, WirePendingApproval } from "./protocols/raw.js";
export { AG_UI_CUSTOM_EVENTS, type AgUiApprovalState } from "./protocols/ag-ui.js";
export { AG_UI_APPROVAL_INTERRUPT, INTERRUPT_CANCELLED_REASON } from "./protocols/ag-ui-interrupt.js";
export { DENIED_BY_CLIENT_REASON } from "./approvals/answer-approval.js";
export { publicMessage, MAX_PUBLIC_MESSAGE_CHARS } from "./protocols/public-error.js";
