/** The grant a role needs on each kind of object PostgreSQL names in a refusal (the fleet README's "Database roles"). */
const GRANTS: Readonly<Record<string, (name: string) => string>> = {
  schema: (name) => `GRANT USAGE ON SCHEMA ${name}`,
  table: (name) => `GRANT SELECT, INSERT, UPDATE, DELETE ON TABLE ${name}`,
  sequence: (name) => `GRANT USAGE, SELECT, UPDATE ON SEQUENCE ${name}`,
  function: (name) => `GRANT EXECUTE ON FUNCTION ${name}`,
};

/**
 * The grant a refusal of PostgreSQL (SQLSTATE 42501, `permission denied for <kind> <name>`) says
 * the connecting role lacks, as the statement that gives it (e.g. `GRANT USAGE ON SCHEMA
 * adaptor_fleet`); undefined when the message names no schema, table, sequence or function.
 */
export function missingGrant(error: unknown): string | undefined {
  const message = error instanceof Error ? error.message : "";
  const found = /permission denied for (schema|table|relation|sequence|function) (\S+)/.exec(message);
  if (!found) return undefined;
  const kind = found[1] === "relation" ? "table" : found[1]!;
  return GRANTS[kind]!(found[2]!);
}
