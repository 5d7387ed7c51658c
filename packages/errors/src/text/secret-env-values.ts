/** A variable name that says its value is a credential. */
const SECRET_NAME = /(KEY|TOKEN|SECRET|PASS|CREDENTIAL|AUTH)/i;

/**
 * The values of `env`'s variables whose names look like credentials (they contain `KEY`, `TOKEN`,
 * `SECRET`, `PASS` (so `PASSWORD`, `PASSWD`, `DB_PASS`), `CREDENTIAL` or `AUTH`, in any case) and
 * that are at least 8 characters long, longest first: what `publicMessage` replaces wherever
 * it finds them.
 * @param env the environment to read; default `process.env`.
 */
export function secretEnvValues(env: Readonly<Record<string, string | undefined>> = process.env): string[] {
  const values = new Set<string>();
  for (const [name, value] of Object.entries(env)) {
    if (value !== undefined && value.length >= 8 && SECRET_NAME.test(name)) values.add(value);
  }
  // Longest first, so a value that contains another is replaced whole.
  return [...values].sort((a, b) => b.length - a.length);
}
