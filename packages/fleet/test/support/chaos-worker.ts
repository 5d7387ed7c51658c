// A fleet worker process for the chaos and failover tests: argv url, schema, name, and optionally
// maxAttempts (default 5), then flags: "retryRuns", "suspend" (`onLostApproval: "suspend"`). Prints
// "ready" once polling; SIGTERM drains and exits 0.
import { Agent } from "adaptor";
import { PostgresThreadStore } from "@adaptor/threadstore-postgres";
import { Fleet } from "@adaptor/fleet";
import { fakeCliStoreView, fakeCodex } from "./fake-codex.js";

const [url, schema, name, attempts, ...flags] = process.argv.slice(2) as [string, string, string, string?, ...string[]];
const store = new PostgresThreadStore({ connectionString: url, schema: `${schema}_threads` });
const view = fakeCliStoreView(store);
const fleet = new Fleet({
  connectionString: url,
  schema,
  threadStore: view,
  heartbeatSeconds: 10,
  monitorIntervalSeconds: 1,
  maxAttempts: Number(attempts ?? 5),
  retryRuns: flags.includes("retryRuns"),
  onLostApproval: flags.includes("suspend") ? "suspend" : "ask-again",
});
// `on`, not `once`: a `once` listener is gone when the signal is dispatched, and the driver kit then
// ends the process itself (it acts on a SIGTERM nobody else listens to).
let draining = false;
process.on("SIGTERM", () => {
  if (draining) return;
  draining = true;
  void fleet
    .drain({ timeoutMs: 10_000 })
    .then(() => fleet.close())
    .then(() => store.close())
    .then(() => process.exit(0));
});
await fleet.worker(({ threadStore }) => new Agent(fakeCodex("unused"), { threadStore: threadStore!, spawn: true }), {
  concurrency: 2,
  name,
});
process.stdout.write("ready\n");
