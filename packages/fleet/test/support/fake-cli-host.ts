import { PostgresThreadStore } from "@adaptor/threadstore-postgres";
import { Fleet } from "@adaptor/fleet";
import { fakeCliStoreView } from "./fake-codex.js";

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
