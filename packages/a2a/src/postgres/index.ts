// Public surface of @adaptor/a2a/postgres: a PostgreSQL task store for the A2A server (needs `pg`).

export { PostgresTaskStore, type PostgresTaskStoreOptions } from "./postgres-task-store.js";
