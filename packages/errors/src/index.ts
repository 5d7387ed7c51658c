export { ErrCode, isErrCode } from "./err-code.js";
export { sentinel, isSentinel, SENTINEL_BRAND, type Sentinel } from "./sentinel.js";
export { AdaptorError, hasBrand, ERROR_BRAND_PREFIX, type AdaptorErrorOptions, type BrandedErrorClass } from "./adaptor-error.js";
export { isError, findError, walkError } from "./match.js";
export { DriverError, errorCode, type DriverErrorInit } from "./driver-error.js";
export { ErrInvalidOption, InvalidOptionError, type InvalidOptionInit } from "./validate/invalid-option-error.js";
export {
  MalformedStringError,
  findStringFlaw,
  assertWellFormedString,
  type StringFlaw,
  type StringFlawKind,
} from "./validate/well-formed.js";
export { checkOptions, type OptionCheck, type OptionShape, type CheckOptionsSettings } from "./validate/check-options.js";
export {
  optionChecks,
  MAX_TIMER_MS,
  type StringCheckSettings,
  type TimerCheckSettings,
  type RecordCheckSettings,
} from "./validate/option-checks.js";
