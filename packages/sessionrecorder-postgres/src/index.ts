// Public surface of @adaptor/sessionrecorder-postgres.
export { PostgresEventBackend, type PostgresEventBackendOptions, type ReplayOptions } from "./postgres-event-backend.js";
