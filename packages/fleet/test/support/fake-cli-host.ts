import { afterEach } from "vitest";
import { PostgresThreadStore } from "@adaptor/threadstore-postgres";
import { Fleet } from "@adaptor/fleet";
import { fakeCliStoreView } from "./fake-codex.js";
import { PG_URL, skipWithoutServer } from "./pg.js";

/**
 * A started host of the fleet in `schema` whose thread store is the fake CLI's view of its own
 * PostgreSQL store (schema `<schema>_threads`); its close is pushed onto `closers`.
 */
export async function fakeCliHost(url: string, schema: string, closers: (() => Promise<void>)[]): Promise<Fleet> {
  const store = new PostgresThreadStore({ connectionString: url, schema: `${schema}_threads` });
  await store.migrate();
  const fleet = new Fleet({ connectionString: url, schema, threadStore: fakeCliStoreView(store) });
  await fleet.start();
  closers.push(async () => {
    await fleet.close();
    await store.close();
  });
  return fleet;
}

/** What {@link onFakeCliFleet} gives a suite: the test server, the closers run after each test, a host factory. */
export interface FakeCliFleetSuite {
  readonly url: string;
  readonly closers: (() => Promise<void>)[];
  /** A started host in `schema` (see {@link fakeCliHost}), closed after the test. */
  host(schema: string): Promise<Fleet>;
}

/**
 * Declares a fleet suite on the test server from scripts/with-postgres.sh: `body` declares its
 * `describe` blocks with the suite's context, and what a test pushed onto `closers` is closed after
 * it, last first. Without a server, a skipped suite named `name` says why.
 */
export function onFakeCliFleet(name: string, body: (suite: FakeCliFleetSuite) => void): void {
  if (!PG_URL) return skipWithoutServer(name);
  const url = PG_URL;
  const closers: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const close of closers.splice(0).reverse()) await close();
  });
  body({ url, closers, host: (schema) => fakeCliHost(url, schema, closers) });
}
