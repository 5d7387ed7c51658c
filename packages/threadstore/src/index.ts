export { ErrBusy, ErrLeaseLost, ErrAlreadyExists } from "./errors/sentinels.js";
export { BusyError } from "./errors/busy-error.js";
export { LeaseLostError } from "./errors/lease-lost-error.js";
export { AlreadyExistsError } from "./errors/already-exists-error.js";
