import { randomBytes } from "node:crypto";
import { describe, it } from "vitest";

/** The test server from scripts/with-postgres.sh (or a developer's own), if any. */
export const PG_URL = process.env.ADAPTOR_TEST_PG_URL;

/** A schema name no other test or run uses. */
export function freshSchema(prefix: string): string {
  return `${prefix}_${randomBytes(6).toString("hex")}`;
}

/** Registers a skipped suite and warns, so a run without a server says why nothing ran. */
export function skipWithoutServer(name: string): void {
  console.warn(
    `[sessionrecorder-postgres] ADAPTOR_TEST_PG_URL is not set: skipping "${name}". ` +
      "Run the tests under scripts/with-postgres.sh to start a throwaway PostgreSQL 15 server.",
  );
  describe.skip(`${name} (ADAPTOR_TEST_PG_URL not set)`, () => {
    it("needs a PostgreSQL server", () => {});
  });
}
