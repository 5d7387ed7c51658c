/**
 * What is wrong with `value` as a PostgreSQL `connectionString`, or `undefined` when `pg` can
 * parse it: a non-empty string, either a Unix socket path (`/var/run/postgresql dbname`) or a URL
 * (`postgres://user:password@host:5432/db?sslmode=require`) that parses as `pg` parses it (a
 * space, a lone `%` encoded first; a missing host allowed). A malformed port or host (`:notaport`,
 * `[::1`) is refused here, at construction, instead of failing the first query. The reason never
 * quotes the value, which may hold a password.
 */
export function connectionStringProblem(value: unknown): string | undefined {
  if (typeof value !== "string" || value === "") return "must be a non-empty string";
  if (value.startsWith("/")) return undefined;
  const text = / |%[^a-f0-9]|%[a-f0-9][^a-f0-9]/i.test(value) ? encodeURI(value).replace(/%25(\d\d)/g, "%$1") : value;
  for (const candidate of [text, text.replace("@/", "@___DUMMY___/")]) {
    try {
      new URL(candidate, "postgres://base");
      return undefined;
    } catch {
      // Tried again with a dummy host, as pg does; then refused.
    }
  }
  return "is not a valid connection URL (expected e.g. postgres://user:password@host:5432/database; the value is not quoted, it may hold a password)";
}
