// A fleet worker host for the fleet benchmark and the simulation: argv url, schema, concurrency,
// name, driver (`fake-codex`: the bench's fake `codex app-server` as a CLI process per run;
// `reference`: the in-process scripted driver, no process). Thread runs use a PostgreSQL thread
// store in `<schema>_threads` (already migrated). Prints "ready" once polling; SIGTERM closes it.
import { join } from "node:path";
import { codex } from "@adaptor/codex";
import { ReferenceDriver } from "@adaptor/driver/testing";
import { Fleet } from "@adaptor/fleet";
import { PostgresThreadStore } from "@adaptor/threadstore-postgres";
import { Agent } from "adaptor";
import { FIXTURES } from "../pipeline/consumer-process.js";

const [url, schema, concurrency, name, driver] = process.argv.slice(2) as [string, string, string, string, string];
const store = new PostgresThreadStore({ connectionString: url, schema: `${schema}_threads` });
// The fake CLI keeps no session files to carry between hosts: a store without session state.
const view = new Proxy(store, {
  get: (target, property) => {
    if (property === "sessionState") return undefined;
    const value: unknown = Reflect.get(target, property, target);
    return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(target) : value;
  },
});
const fleet = new Fleet({ connectionString: url, schema, threadStore: view });
let closing = false;
process.on("SIGTERM", () => {
  if (closing) return;
  closing = true;
  void fleet
    .close()
    .then(() => store.close())
    .then(() => process.exit(0));
});
await fleet.worker(
  ({ threadStore }) =>
    new Agent(
      driver === "reference"
        ? new ReferenceDriver({ latencyMs: 0 })
        : codex({ command: join(FIXTURES, "fake-codex-app-server.mjs"), killGraceMs: 300 }),
      { threadStore: threadStore!, spawn: true },
    ),
  { concurrency: Number(concurrency), name },
);
process.stdout.write("ready\n");
