export { ErrInvalidConfig, ErrUnsupported, ErrTransportUnsupported } from "./errors/sentinels.js";
