// One worker process of the multi-process test (argv: url, schema, owner, cycles, key); the protocol is hammerWorkerMain's.
import { hammerWorkerMain } from "@adaptor/threadstore/testing";
import { PostgresThreadStore } from "../../src/index.js";

const [url, schema, owner, cycles, key] = process.argv.slice(2) as [string, string, string, string, string];
await hammerWorkerMain(new PostgresThreadStore({ connectionString: url, schema }), { owner, cycles: Number(cycles), key });
