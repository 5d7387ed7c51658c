/**
 * What a host can do to a turn while it runs, offered by the driver through
 * {@link DriverSink.attachControl} once the turn can take it. Each member is present only when the
 * descriptor declares it (`DriverCapabilities.turnControl`); each resolves once the CLI took the
 * request (written to it, or acknowledged when the protocol answers) and rejects with an ordinary
 * error when the CLI refused it or the write failed.
 */
export interface TurnControl {
  /**
   * Stops the running turn without ending the conversation or the process: the driver's `run`
   * then resolves with `interrupted: true`, the turn's partial output and a checkpoint that keeps
   * what happened (the next turn continues after it).
   */
  interrupt?(): Promise<void>;
  /** Gives the running turn another user message, taken in at the CLI's next model request. */
  send?(text: string): Promise<void>;
  /** Switches the model for the rest of the turn (and of the process's conversation). */
  setModel?(model: string): Promise<void>;
}
