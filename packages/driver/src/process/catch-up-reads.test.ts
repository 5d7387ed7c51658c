import { spawn } from "node:child_process";
import { describe, expect, it } from "vitest";
import { observeEnvironReads } from "./descendants.js";
import { spawnCli } from "./spawn-cli.js";

// Many CLIs ending at once each catch their descendants up with what started since their listing
// began: the catch-ups asked for together read /proc once for all of them.

const node = process.execPath;
const forever = ["-e", "setInterval(() => {}, 1000)"];

describe.runIf(process.platform === "linux")("catch-ups asked for together", () => {
  it("read the environment of a process started since once, however many CLIs look, and none takes it", async () => {
    const clis = await Promise.all([0, 1, 2].map(() => spawnCli({ command: node, args: forever, device: "node", killGraceMs: 500 })));
    const reads: number[] = [];
    let stranger: number | undefined;
    try {
      observeEnvironReads((pid) => reads.push(pid));
      const listed = Promise.all(clis.map((cli) => cli.listDescendants?.()));
      // Started after each listing read the last pid handed out and before the listings run: in
      // every catch-up's window. In a session of its own (one the host made, not one older than the
      // CLIs), it could be a CLI's, so its environment is looked at for a tag.
      stranger = spawn(node, forever, { stdio: "ignore", detached: true }).pid;
      expect(await listed).toEqual([[], [], []]);
      expect(reads.filter((pid) => pid === stranger)).toEqual([stranger]);
    } finally {
      observeEnvironReads(undefined);
      if (stranger !== undefined) process.kill(stranger, "SIGKILL");
      await Promise.all(clis.map((cli) => cli.close()));
    }
  }, 30_000);
});
