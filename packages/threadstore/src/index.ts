export { ErrBusy, ErrLeaseLost, ErrAlreadyExists } from "./errors/sentinels.js";
export { BusyError } from "./errors/busy-error.js";
export { LeaseLostError } from "./errors/lease-lost-error.js";
export { AlreadyExistsError } from "./errors/already-exists-error.js";
export type { ThreadStatus, CheckpointState, ThreadRecord } from "./contract/thread-record.js";
export type { Lease } from "./contract/lease.js";
export type { ThreadStore, ResolveQuery, FinalizeRequest } from "./contract/thread-store.js";
export type { StoreFaults, StoreOperation, FinalizeStep } from "./faults/store-faults.js";
export { MemoryThreadStore, type MemoryThreadStoreOptions } from "./memory/memory-thread-store.js";
