/** What {@link captureConfig} returns. */
export interface CapturedConfig<T> {
  /** The checked, frozen config; a frozen empty one when it was refused. */
  readonly config: T;
  /**
   * Throws the refusal of the config given at capture, if any, else checks the captured config
   * again (a driver's `validateConfig()`, called before every launch).
   */
  validate(): void;
}

/**
 * Captures a driver's config at construction without throwing: a driver constructor must not
 * throw for a bad config, the refusal is reported by `validateConfig()` before any run (and so
 * through the run's result).
 *
 * @param validate - the driver's check, e.g. one built on `validateDriverConfig`; returns a frozen copy.
 */
export function captureConfig<T extends object>(validate: (config: T | undefined) => T, config: T | undefined): CapturedConfig<T> {
  let checked: T = Object.freeze({}) as T;
  let invalid: unknown;
  try {
    checked = validate(config);
  } catch (error) {
    invalid = error ?? new Error("config refused");
  }
  return {
    config: checked,
    validate() {
      if (invalid !== undefined) throw invalid;
      validate(checked);
    },
  };
}
