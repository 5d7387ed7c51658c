export { ErrCode, isErrCode } from "./err-code.js";
export { sentinel, isSentinel, SENTINEL_BRAND, type Sentinel } from "./sentinel.js";
export {
  AdaptorError,
  hasBrand,
  ERROR_BRAND_PREFIX,
  type AdaptorErrorOptions,
  type BrandedErrorClass,
} from "./adaptor-error.js";
export { isError, findError, walkError } from "./match.js";
export { DriverError, errorCode, type DriverErrorInit } from "./driver-error.js";
