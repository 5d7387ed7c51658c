// `@adaptor/errors/internal`: plumbing shared by the SDK's own packages. Not a stable API: no
// semver promise.

export { raceAbort } from "./abort/race-abort.js";
export { connectionStringProblem } from "./postgres/connection-string.js";
export { postgresConnectionLost, postgresErrorCode } from "./postgres/postgres-error-code.js";
export { postgresTransaction, type PostgresTransactionClient, type PostgresTransactionOptions } from "./postgres/postgres-transaction.js";
export { redactValues, redactCutAtStart, redactCutAtEnd, MIN_CUT_VALUE_CHARS, REDACTED } from "./text/redact-values.js";
export { secretEnvValues } from "./text/secret-env-values.js";
export { redactUrlCredentials, isCredentialParam } from "./text/redact-url-credentials.js";
export { procStatFields } from "./proc/proc-stat.js";
export { closestOption } from "./validate/closest-option.js";
