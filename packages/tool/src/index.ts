export { ErrInvalidDefinition, ErrInvalidInput, ErrInvalidOutput } from "./errors/sentinels.js";
