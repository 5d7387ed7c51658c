import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { procStatFields } from "./proc-stat.js";

describe.skipIf(process.platform !== "linux")("procStatFields", () => {
  it("counts fields after the command name even when it holds spaces and parentheses: state, ppid and starttime of a child", async () => {
    // The command name (comm) is the executable's file name: a symlink named with ") x (" shows it.
    const dir = await mkdtemp(join(tmpdir(), "proc-stat-"));
    const child = spawn("/bin/sh", ["-c", 'ln -s /bin/sleep "$0/a) b (c" && exec "$0/a) b (c" 30', dir], { stdio: "ignore" });
    await once(child, "spawn");
    try {
      let fields: string[] | undefined;
      for (let i = 0; i < 100 && !fields?.length; i++) {
        const now = procStatFields(child.pid!);
        if (now && (await comm(child.pid!)) === "a) b (c") fields = now;
        else await new Promise((r) => setTimeout(r, 50));
      }
      expect(fields?.[0]).toMatch(/^[RSD]$/);
      expect(Number(fields?.[1])).toBe(process.pid);
      expect(fields?.[19]).toMatch(/^\d+$/);
    } finally {
      child.kill("SIGKILL");
      await once(child, "exit");
      await rm(dir, { recursive: true, force: true });
    }
    expect(procStatFields(2 ** 22 + 1)).toBeUndefined(); // above the kernel's pid_max: no such process
  });
});

async function comm(pid: number): Promise<string> {
  return (await readFile(`/proc/${pid}/comm`, "utf8").catch(() => "")).trim();
}
