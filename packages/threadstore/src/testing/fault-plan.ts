import type { FinalizeStep, StoreFaults, StoreOperation } from "../faults/store-faults.js";

/**
 * The {@link StoreFaults} the conformance kit hands to a store factory: inert until a test arms
 * it, then it throws once at the chosen point. A factory passes it unchanged to its store's
 * `faults` option.
 */
export class FaultPlan implements StoreFaults {
  #step: FinalizeStep | undefined;
  #stepError: Error | undefined;
  #operationError: Error | undefined;

  /** Arms a one-shot failure inside `finalize`'s transaction right after `step`; returns the error that will be thrown. */
  failAfterFinalizeStep(step: FinalizeStep, error: Error = new Error(`injected fault after finalize step ${step}`)): Error {
    this.#step = step;
    this.#stepError = error;
    return error;
  }

  /** Makes every later operation fail at its start with `error` (an unreachable backend) until {@link heal}. */
  failEveryOperation(error: Error = new Error("injected backend failure")): Error {
    this.#operationError = error;
    return error;
  }

  /** Disarms everything. */
  heal(): void {
    this.#step = undefined;
    this.#stepError = undefined;
    this.#operationError = undefined;
  }

  /** {@link StoreFaults.beforeOperation}: throws while {@link failEveryOperation} is in force. */
  beforeOperation(_operation: StoreOperation): void {
    if (this.#operationError) throw this.#operationError;
  }

  /** {@link StoreFaults.finalizeStepArmed}: true while a {@link failAfterFinalizeStep} fault is pending. */
  finalizeStepArmed(): boolean {
    return this.#step !== undefined;
  }

  /** {@link StoreFaults.afterFinalizeStep}: throws once at the armed step. */
  afterFinalizeStep(step: FinalizeStep): void {
    if (step !== this.#step || !this.#stepError) return;
    const error = this.#stepError;
    this.#step = undefined;
    this.#stepError = undefined;
    throw error;
  }
}
