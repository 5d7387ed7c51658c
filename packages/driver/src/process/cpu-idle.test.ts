import { spawn } from "node:child_process";
import { once } from "node:events";
import { describe, expect, it } from "vitest";
import { waitForCpuIdle } from "./cpu-idle.js";

const node = process.execPath;

describe.skipIf(process.platform !== "linux")("waitForCpuIdle", () => {
  it("a process busy with start-up work counts as idle only after that work ended", async () => {
    // Spins for 2 s of wall time, says so, then waits doing nothing.
    const child = spawn(
      node,
      ["-e", "const end = Date.now() + 2000; while (Date.now() < end); console.log('spun'); setInterval(() => {}, 1000);"],
      {
        stdio: ["ignore", "pipe", "ignore"],
      },
    );
    let spun = false;
    child.stdout.on("data", () => (spun = true));
    try {
      await once(child, "spawn");
      await waitForCpuIdle(child.pid!, { quietMs: 1000, maxMs: 60_000 });
      expect(spun).toBe(true);
    } finally {
      child.kill("SIGKILL");
    }
  });

  it("resolves at once for a process that is gone", async () => {
    const child = spawn(node, ["-e", ""], { stdio: "ignore" });
    await once(child, "exit");
    await expect(waitForCpuIdle(child.pid!, { quietMs: 60_000, maxMs: 60_000 })).resolves.toBeUndefined();
  });

  it("stops waiting with the signal's reason when aborted", async () => {
    const controller = new AbortController();
    const reason = new Error("stop");
    const waiting = waitForCpuIdle(process.pid, { quietMs: 60_000, maxMs: 60_000, signal: controller.signal });
    controller.abort(reason);
    await expect(waiting).rejects.toBe(reason);
  });
});
