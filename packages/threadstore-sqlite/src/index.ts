export { SqliteThreadStore, type SqliteThreadStoreOptions } from "./sqlite-thread-store.js";
