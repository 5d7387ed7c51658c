// One worker process of multi-process.test.ts (argv: path, owner, cycles, key); the protocol is hammerWorkerMain's.
import { hammerWorkerMain } from "@adaptor/threadstore/testing";
import { SqliteThreadStore } from "../../src/index.js";

const [path, owner, cycles, key] = process.argv.slice(2) as [string, string, string, string];
await hammerWorkerMain(new SqliteThreadStore({ path, busyTimeoutMs: 10_000 }), { owner, cycles: Number(cycles), key });
