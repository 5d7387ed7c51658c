import type { ApprovalMode } from "./descriptor.js";
import type { PromptImage } from "./request.js";

/**
 * What a host can do to a turn while it runs, offered by the driver through
 * {@link DriverSink.attachControl} once the turn can take it. Each member is present only when the
 * descriptor declares it (`DriverCapabilities.turnControl`); each resolves once the CLI took the
 * request (written to it, or acknowledged when the protocol answers), resolves `false` when the
 * turn had ended before the CLI could take it (nothing delivered: the host's call resolves `false`),
 * and rejects with an ordinary error (a `DriverError` keeping the protocol's error as its `cause`)
 * when the CLI refused it or the write failed. A rejection with a `DriverError`
 * `DEVICE_DISCONNECTED` or `BROKEN_PIPE` (the CLI gone), or one that comes as the run ends, is the
 * turn's end to the SDK: the host's call resolves `false`.
 */
export interface TurnControl {
  /**
   * Stops the running turn without ending the conversation or the process: the driver's `run`
   * then resolves with `interrupted: true`, the turn's partial output and a checkpoint that keeps
   * what happened (the next turn continues after it).
   */
  interrupt?(): Promise<boolean | void>;
  /**
   * Gives the running turn another user message, taken in at the CLI's next model request: its
   * `images` (read and checked, as a prompt's are; only when the descriptor declares
   * `turnControl.sendImages`) before its `text` (empty when the message is only images).
   */
  send?(text: string, images?: readonly PromptImage[]): Promise<boolean | void>;
  /**
   * Switches the model for the rest of the turn (and of the process's conversation); `false` when
   * the turn had ended (or will make no further model request) before the switch could apply to it.
   */
  setModel?(model: string): Promise<boolean | void>;
  /**
   * Makes the CLI ask under `permission` (the host's new `permission` approval mode, as
   * `stream.setApprovalMode` was given it) for the rest of the turn, where the CLI's own mode
   * decides which calls it asks about. The driver emits a `notice` of kind `approval.mode`
   * (`data.permission`: this `permission`) at the moment the switch took effect on the CLI (the CLI
   * answered it, or at once when the CLI needs no request), before the events of any tool call
   * started after it: the SDK judges each call that ran unasked by the mode in effect when its
   * `tool-call` started. Absent: the switch takes effect for the SDK's checks as the host makes it.
   */
  setApprovalMode?(permission: ApprovalMode): Promise<boolean | void>;
}
