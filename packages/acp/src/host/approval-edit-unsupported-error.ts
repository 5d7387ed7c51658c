import { AdaptorError } from "@adaptor/errors";

/**
 * The host approved an ACP tool call with an edited input (`approve({ updatedInput })`), which an
 * ACP permission answer cannot carry (it selects one of the agent's options, nothing more). The
 * tool was denied instead, so nothing ran with the input the host did not approve; the run ends as
 * a `RunError` `approval_denied` whose cause is this error.
 */
export class AcpApprovalEditUnsupportedError extends AdaptorError {
  static override readonly brand: symbol = Symbol.for("adaptor.error.AcpApprovalEditUnsupportedError");
  /** Driver type, e.g. `"qwen"`. */
  readonly driver: string;
  /** The tool whose edited approval was refused. */
  readonly toolName: string | undefined;
  /** The tool call's id. */
  readonly toolCallId: string | undefined;

  constructor(driver: string, toolName: string | undefined, toolCallId: string | undefined) {
    super(
      `${driver}: approve({ updatedInput }) for ${toolName ?? "a tool"} cannot be carried over ACP (a permission answer only selects an option); the tool was denied`,
    );
    this.driver = driver;
    this.toolName = toolName;
    this.toolCallId = toolCallId;
  }
}
