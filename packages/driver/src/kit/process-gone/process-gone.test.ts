import { spawn } from "node:child_process";
import { once } from "node:events";
import { describe, expect, it } from "vitest";
import { processGone, waitForProcessGone } from "./process-gone.js";

describe("processGone", () => {
  it("is false for a running process and true once it has exited and been reaped", async () => {
    expect(processGone(process.pid)).toBe(false);
    const child = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { stdio: "ignore" });
    await once(child, "spawn");
    const pid = child.pid!;
    expect(processGone(pid)).toBe(false);
    child.kill("SIGKILL");
    expect(await waitForProcessGone(pid, 10_000)).toBe(true);
  });

  it("waitForProcessGone gives up with false for a process that stays", async () => {
    expect(await waitForProcessGone(process.pid, 100)).toBe(false);
  });
});
