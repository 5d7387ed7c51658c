import { sentinel } from "@adaptor/errors";

// The six driver pre-invocation identities (docs/errors.md "Pre-invocation errors",
// "Driver extension errors"). The root `adaptor` package re-exports these very objects.

/** `Driver.validateConfig` rejected the captured configuration. */
export const ErrInvalidDriverConfig = sentinel("adaptor.driver.InvalidDriverConfig", "invalid driver config");
/** A policy enum, action, or retry value is out of domain. */
export const ErrInvalidPolicy = sentinel("adaptor.driver.InvalidPolicy", "invalid policy");
/** A valid, explicitly selected sandbox, web-search or browser value is unsupported by the driver. */
export const ErrPolicyCapabilityUnsupported = sentinel("adaptor.driver.PolicyCapabilityUnsupported", "policy capability unsupported");
/** An explicit approval mode is absent from the driver's descriptor. */
export const ErrHumanDecisionModeUnsupported = sentinel("adaptor.driver.HumanDecisionModeUnsupported", "human decision mode unsupported");
/** An output schema cannot be derived, parsed, normalised or compiled. */
export const ErrInvalidOutputSchema = sentinel("adaptor.driver.InvalidOutputSchema", "invalid output schema");
/** Neither native enforcement nor prompt instructions plus local validation can honour the schema. */
export const ErrStructuredOutputUnsupported = sentinel("adaptor.driver.StructuredOutputUnsupported", "structured output unsupported");
/** A run option the driver cannot deliver to its agent (system prompt, subagents, ...): see `FeatureUnsupportedError`. */
export const ErrFeatureUnsupported = sentinel("adaptor.driver.FeatureUnsupported", "feature unsupported");
