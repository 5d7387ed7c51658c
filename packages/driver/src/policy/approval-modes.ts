import type { ApprovalKind, ApprovalMode, DriverCapabilities } from "../spi/descriptor.js";

/**
 * The approval modes `capabilities` lists for `kind`; `["inherit"]` for an `elicitation` a driver
 * does not list (it relays no MCP server's elicitation).
 */
export function approvalModes(capabilities: Pick<DriverCapabilities, "approvals">, kind: ApprovalKind): readonly ApprovalMode[] {
  return capabilities.approvals[kind] ?? ["inherit"];
}
