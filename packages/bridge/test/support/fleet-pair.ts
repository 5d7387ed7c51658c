import { Agent } from "adaptor";
import { PostgresThreadStore } from "@adaptor/threadstore-postgres";
import { Fleet } from "@adaptor/fleet";
import type { BridgeOptions } from "../../src/index.js";
import { fakeCliStoreView, fakeCodex } from "../../../fleet/test/support/fake-codex.js";
import { freshSchema } from "../../../fleet/test/support/pg.js";
import { processesWith, until } from "../../../fleet/test/support/processes.js";
import { serve, type Served } from "../support.js";

/** Two bridge front-ends over one fleet, with the worker that serves it. */
export interface FleetPair {
  readonly a: Served;
  readonly b: Served;
  /** The worker's fleet, then A's, then B's. */
  readonly fleets: Fleet[];
  readonly store: PostgresThreadStore;
  /** Closes the front-ends, the fleets and the store; waits until no fake CLI with `marker` is left. */
  close(): Promise<void>;
}

/**
 * Two front-ends (each a Bridge on its own Fleet instance) and a worker on the testkit's fake codex
 * CLI (4 slots, named `w1`), on a fresh schema of the PostgreSQL at `url`. `runOptions` is every
 * front-end's (it scripts the fake CLI); `marker` is the variable it puts in the CLI's environment.
 */
export async function fleetPair(url: string, marker: string, runOptions: BridgeOptions["runOptions"]): Promise<FleetPair> {
  const schema = freshSchema("bridge");
  const store = new PostgresThreadStore({ connectionString: url, schema: `${schema}_threads` });
  await store.migrate();
  const fleets: Fleet[] = [];
  const open = async (): Promise<Fleet> => {
    const fleet = new Fleet({ connectionString: url, schema, threadStore: fakeCliStoreView(store) });
    await fleet.start();
    fleets.push(fleet);
    return fleet;
  };
  const worker = await open();
  await worker.worker(({ threadStore }) => new Agent(fakeCodex("unused"), { threadStore: threadStore!, spawn: true }), {
    concurrency: 4,
    name: "w1",
  });
  const a = await serve({ fleet: await open(), ...(runOptions ? { runOptions } : {}) });
  const b = await serve({ fleet: await open(), ...(runOptions ? { runOptions } : {}) });
  return {
    a,
    b,
    fleets,
    store,
    async close() {
      await a.close();
      await b.close();
      for (const fleet of fleets) await fleet.close();
      await store.close();
      await until(() => processesWith(marker).length === 0, "the fake CLIs to exit");
    },
  };
}
