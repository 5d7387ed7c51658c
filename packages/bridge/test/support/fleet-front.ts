// A bridge front-end process over a fleet, for the fleet chaos test: argv url, schema, marker,
// sleepMs. Serves the bridge on a free port of 127.0.0.1 and prints "ready <port>". A prompt
// "k<key> turn <t>" makes the fake codex CLI answer it after sleepMs (a thread's later turns
// resume); the marker goes into the CLI's environment so the test can find it. SIGTERM closes.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { Fleet } from "@adaptor/fleet";
import { Bridge } from "../../src/index.js";
import { fakeCodexSteps, fakeRun } from "../../../fleet/test/support/fake-codex.js";

const [url, schema, marker, sleepMs] = process.argv.slice(2) as [string, string, string, string];
const fleet = new Fleet({ connectionString: url, schema, heartbeatSeconds: 10, monitorIntervalSeconds: 1, maxAttempts: 5 });
await fleet.start();
const bridge = new Bridge({
  fleet,
  runOptions: ({ prompt }) => {
    const turn = Number(/turn (\d+)$/.exec(prompt)?.[1] ?? 0);
    const steps = fakeCodexSteps(prompt, { sleepMs: Number(sleepMs), resume: turn > 0 });
    return { env: { ...fakeRun(steps).env, [marker]: "1" } };
  },
});
const server = createServer(bridge.handler);
await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
process.stdout.write(`ready ${(server.address() as AddressInfo).port}\n`);
process.on("SIGTERM", () => {
  void bridge
    .close()
    .then(() => {
      server.closeAllConnections();
      server.close();
      return fleet.close();
    })
    .then(() => process.exit(0));
});
