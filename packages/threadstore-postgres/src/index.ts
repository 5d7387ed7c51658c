export { PostgresThreadStore, type PostgresThreadStoreOptions } from "./postgres-thread-store.js";
