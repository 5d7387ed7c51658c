import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { afterEach, describe, expect, it, vi } from "vitest";
import setup, { RUN_MARKER_VAR } from "./leftover-processes.js";

/** Starts, through a shell that exits at once, an orphan `node -e "setInterval(...)" <label>` (its parent pid 1); its pid. */
async function orphan(label: string): Promise<number> {
  const job = `${JSON.stringify(process.execPath)} -e "setInterval(() => {}, 1000)" ${label} >/dev/null 2>&1 & echo $!`;
  const shell = spawn("/bin/sh", ["-c", job], { stdio: ["ignore", "pipe", "ignore"] });
  let out = "";
  shell.stdout.on("data", (d) => (out += String(d)));
  await new Promise((resolve) => shell.on("exit", resolve));
  return Number(out.trim());
}

/** Whether `pid` is a process still running (neither gone nor a zombie). */
function alive(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/stat`, "latin1").split(") ")[1]?.[0] !== "Z";
  } catch {
    return false;
  }
}

describe.skipIf(process.platform !== "linux")("the test run's leftover-process check", () => {
  const marker = process.env[RUN_MARKER_VAR];
  const exitCode = process.exitCode;
  const started: number[] = [];
  afterEach(() => {
    process.env[RUN_MARKER_VAR] = marker;
    process.exitCode = exitCode;
    for (const pid of started.splice(0)) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // gone
      }
    }
    vi.restoreAllMocks();
  });

  it("fails the run, naming and killing a process started under the run's marker that outlived it", async () => {
    const teardown = setup();
    const pid = await orphan("left-behind");
    started.push(pid);
    const errors: string[] = [];
    vi.spyOn(console, "error").mockImplementation((text: string) => void errors.push(text));
    await teardown();
    const code = process.exitCode;
    process.exitCode = exitCode;
    expect(code).toBe(1);
    expect(errors.join("\n")).toMatch(new RegExp(`pid ${pid} \\(parent \\d+\\): .*setInterval.* left-behind`));
    for (const end = Date.now() + 10_000; Date.now() < end && alive(pid);) await new Promise((r) => setTimeout(r, 50));
    expect(alive(pid)).toBe(false);
  });

  it("passes a run whose processes all ended, and names none started under another run's marker", async () => {
    // A process of another run: started before this run's marker was set.
    const other = await orphan("another-run");
    started.push(other);
    const teardown = setup();
    const errors: string[] = [];
    vi.spyOn(console, "error").mockImplementation((text: string) => void errors.push(text));
    await teardown();
    expect(process.exitCode).toBe(exitCode);
    expect(errors).toEqual([]);
    expect(alive(other)).toBe(true);
  });
});
