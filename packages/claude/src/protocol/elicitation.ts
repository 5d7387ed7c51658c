import { elicitationAsk, type ElicitationRequest, type ElicitationResult } from "@adaptor/driver/kit";
import type { ApprovalAsk } from "@adaptor/driver";

/**
 * Claude Code's `elicitation` control request (2.1.332): an MCP server asks the user for input,
 * relayed to the SDK host on the stream-json control channel, which answers `{ action, content? }`
 * (MCP's `ElicitResult`; an error answer is taken as `cancel`).
 */
export interface ElicitationControlRequest {
  readonly subtype: "elicitation";
  readonly mcp_server_name?: unknown;
  readonly message?: unknown;
  readonly mode?: unknown;
  readonly url?: unknown;
  readonly elicitation_id?: unknown;
  readonly requested_schema?: unknown;
}

/** The elicitation a control request carries (mode `form` unless it says `url`). */
export function elicitationOf(request: ElicitationControlRequest): ElicitationRequest {
  const schema = request.requested_schema;
  return {
    server: typeof request.mcp_server_name === "string" ? request.mcp_server_name : "",
    message: typeof request.message === "string" ? request.message : "",
    mode: request.mode === "url" ? "url" : "form",
    ...(typeof schema === "object" && schema !== null && !Array.isArray(schema)
      ? { requestedSchema: schema as Record<string, unknown> }
      : {}),
    ...(typeof request.url === "string" ? { url: request.url } : {}),
    ...(typeof request.elicitation_id === "string" ? { elicitationId: request.elicitation_id } : {}),
  };
}

/** The approval ask for an `elicitation` control request (kind `elicitation`). */
export function elicitationControlAsk(request: ElicitationControlRequest): ApprovalAsk {
  return elicitationAsk(elicitationOf(request));
}

/** The success answer to an `elicitation` control request. */
export function elicitationResponse(requestId: string, result: ElicitationResult): Record<string, unknown> {
  return { type: "control_response", response: { subtype: "success", request_id: requestId, response: result } };
}
