import { randomBytes } from "node:crypto";
import { describe, it } from "vitest";

/** The test server from scripts/with-postgres.sh, if any. */
export const PG_URL = process.env.ADAPTOR_TEST_PG_URL;

/** A schema name no other test uses. */
export function freshSchema(prefix: string): string {
  return `${prefix}_${randomBytes(5).toString("hex")}`;
}

/** A skipped suite that says why, for a run without a server. */
export function skipWithoutServer(name: string): void {
  console.warn(`[a2a] ADAPTOR_TEST_PG_URL is not set: skipping "${name}". Run the tests under scripts/with-postgres.sh.`);
  describe.skip(`${name} (ADAPTOR_TEST_PG_URL not set)`, () => {
    it("needs a PostgreSQL server", () => {});
  });
}
