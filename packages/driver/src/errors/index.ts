export {
  ErrInvalidDriverConfig,
  ErrInvalidPolicy,
  ErrPolicyCapabilityUnsupported,
  ErrHumanDecisionModeUnsupported,
  ErrInvalidOutputSchema,
  ErrStructuredOutputUnsupported,
  ErrFeatureUnsupported,
} from "./sentinels.js";
export { InvalidDriverConfigError } from "./invalid-driver-config-error.js";
export { InvalidPolicyError } from "./invalid-policy-error.js";
export { PolicyCapabilityUnsupportedError } from "./policy-capability-unsupported-error.js";
export { HumanDecisionModeUnsupportedError } from "./human-decision-mode-unsupported-error.js";
export { InvalidOutputSchemaError } from "./invalid-output-schema-error.js";
export { StructuredOutputUnsupportedError } from "./structured-output-unsupported-error.js";
export { SessionConfigFingerprintError } from "./session-config-fingerprint-error.js";
export { FeatureUnsupportedError } from "./feature-unsupported-error.js";
