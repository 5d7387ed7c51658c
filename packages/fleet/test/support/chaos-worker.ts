// A fleet worker process for the chaos and failover tests: argv url, schema, name, and optionally
// maxAttempts (default 5), then flags: "retryRuns", "suspend" (`onLostApproval: "suspend"`),
// "counted" (the fake CLI behind support/counting-cli.mjs, which counts the approval answers that
// reach it in the file the run's env FLEET_ANSWER_COUNTER names), "lostAfterCommit" (a thread
// turn's commit returns from the thread store, then the worker prints "committed" and never goes on:
// the test kills it there), "lostAtRelease=<run id>" (a thread turn's lease release, its last write
// after the commit and before the verdict, waits until that run's assistant text is in the fleet's
// event log, then the process kills itself with SIGKILL: its host is lost there). Prints "ready"
// once polling; SIGTERM drains and exits 0.
import { fileURLToPath } from "node:url";
import { Agent } from "adaptor";
import { codex } from "@adaptor/codex";
import { fakeCliEnv, fakeCliPath } from "@adaptor/testkit/fake-cli";
import { PostgresThreadStore } from "@adaptor/threadstore-postgres";
import { Fleet } from "@adaptor/fleet";
import { fakeCliStoreView, fakeCodex, fakeCodexSteps } from "./fake-codex.js";

const [url, schema, name, attempts, ...flags] = process.argv.slice(2) as [string, string, string, string?, ...string[]];
const store = new PostgresThreadStore({ connectionString: url, schema: `${schema}_threads` });
const lostAtRelease = flags.find((flag) => flag.startsWith("lostAtRelease="))?.slice("lostAtRelease=".length);
const plain = fakeCliStoreView(store);
const view = flags.includes("lostAfterCommit") ? stallAfterCommit(plain) : lostAtRelease ? lostAtReleaseOf(plain, lostAtRelease) : plain;
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
const driver = flags.includes("counted")
  ? codex({
      command: fileURLToPath(new URL("counting-cli.mjs", import.meta.url)),
      env: { ...fakeCliEnv(fakeCodexSteps("unused")), FLEET_FAKE_CLI: fakeCliPath },
      killGraceMs: 300,
    })
  : fakeCodex("unused");
await fleet.worker(({ threadStore }) => new Agent(driver, { threadStore: threadStore!, spawn: true }), {
  concurrency: 2,
  name,
});
process.stdout.write("ready\n");

/** `store`, whose `finalize` commits, then prints "committed" and never returns. */
function stallAfterCommit<S extends object>(store: S): S {
  return new Proxy(store, {
    get: (target, property) => {
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== "function") return value;
      if (property !== "finalize") return (value as (...a: unknown[]) => unknown).bind(target);
      return async (...args: unknown[]) => {
        await (value as (...a: unknown[]) => Promise<unknown>).apply(target, args);
        process.stdout.write("committed\n");
        return new Promise<never>(() => {});
      };
    },
  });
}

/** `store`, whose `releaseLease` waits for run `runId`'s assistant text in the fleet's log, then kills this process. */
function lostAtReleaseOf<S extends object>(store: S, runId: string): S {
  return new Proxy(store, {
    get: (target, property) => {
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== "function") return value;
      if (property !== "releaseLease") return (value as (...a: unknown[]) => unknown).bind(target);
      return async () => {
        for await (const e of fleet.handle(runId).events()) if (e.event.type === "text-delta") break;
        process.kill(process.pid, "SIGKILL");
        return new Promise<never>(() => {});
      };
    },
  });
}
