import { FeatureUnsupportedError, type DriverDescriptor, type TurnControl } from "@adaptor/driver";

/** The stream methods that act on a running turn, by their descriptor flag. */
export type TurnControlName = "interrupt" | "send" | "setModel";

/**
 * Carries a host's requests to the running turn: the driver attaches its {@link TurnControl} once
 * the turn can take them; a request made before that waits for it, one made after the run ended
 * (or that the run ends before the driver attaches) resolves `false`.
 */
export class TurnControls {
  readonly #descriptor: DriverDescriptor;
  #control: TurnControl | undefined;
  #ended = false;
  #waiters: (() => void)[] = [];

  constructor(descriptor: DriverDescriptor) {
    this.#descriptor = descriptor;
  }

  /** For the sink: offers the turn's controls until the returned function withdraws them. */
  attach(control: TurnControl): () => void {
    if (this.#ended) return () => undefined;
    this.#control = control;
    this.#wake();
    return () => {
      if (this.#control === control) this.#control = undefined;
    };
  }

  /** The run is over: pending and later requests resolve `false`. Idempotent. */
  end(): void {
    this.#ended = true;
    this.#control = undefined;
    this.#wake();
  }

  /**
   * Runs `call` on the turn's controls: `true` once the CLI took it, `false` when no turn is
   * running any more. Rejects with {@link FeatureUnsupportedError} when the driver does not declare
   * `name`, before anything else.
   */
  async request(name: TurnControlName, call: (control: TurnControl) => Promise<void> | undefined): Promise<boolean> {
    const { type, capabilities } = this.#descriptor;
    if (capabilities.turnControl?.[name] !== true) {
      throw new FeatureUnsupportedError(type, name, "its CLI cannot take this request during a turn");
    }
    for (;;) {
      if (this.#ended) return false;
      const control = this.#control;
      if (control) {
        const pending = call(control);
        if (!pending) throw new FeatureUnsupportedError(type, name, "the running turn does not offer it");
        await pending;
        return true;
      }
      await new Promise<void>((resolve) => this.#waiters.push(resolve));
    }
  }

  #wake(): void {
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const wake of waiters) wake();
  }
}
