import { spawn, type ChildProcess } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const packageDir = fileURLToPath(new URL("../..", import.meta.url));

/** Starts a worker process (support/chaos-worker.ts) and resolves once it polls. */
export function startWorker(url: string, schema: string, name: string, extra: string[] = []): Promise<ChildProcess> {
  const child = spawn(
    process.execPath,
    ["--conditions=source", "--import", "tsx", "test/support/chaos-worker.ts", url, schema, name, ...extra],
    { cwd: packageDir, stdio: ["ignore", "pipe", "inherit"] },
  );
  return new Promise((resolve, reject) => {
    child.once("error", reject);
    child.once("exit", (code) => reject(new Error(`worker ${name} exited ${code} before ready`)));
    child.stdout!.on("data", (chunk: Buffer) => {
      if (chunk.toString().includes("ready")) resolve(child);
    });
  });
}

const bridgeDir = fileURLToPath(new URL("../../../bridge", import.meta.url));

/**
 * Starts a bridge front-end process over the fleet (packages/bridge/test/support/fleet-front.ts)
 * and resolves with it and its URL once it listens.
 */
export function startFront(url: string, schema: string, marker: string, sleepMs: number): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(
    process.execPath,
    ["--conditions=source", "--import", "tsx", "test/support/fleet-front.ts", url, schema, marker, String(sleepMs)],
    { cwd: bridgeDir, stdio: ["ignore", "pipe", "inherit"] },
  );
  return new Promise((resolve, reject) => {
    child.once("error", reject);
    child.once("exit", (code) => reject(new Error(`front-end exited ${code} before ready`)));
    let out = "";
    child.stdout!.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      const port = /ready (\d+)/.exec(out)?.[1];
      if (port) resolve({ child, url: `http://127.0.0.1:${port}` });
    });
  });
}

/** Pids of processes whose environment holds `marker` (the fake CLIs of one test). */
export function processesWith(marker: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/environ`, "latin1").includes(marker)) found.push(Number(entry));
    } catch {
      // gone, or not ours to read
    }
  }
  return found;
}

/** Polls `check` (a safety net of `ms`, not a timing assertion). */
export async function until(check: () => boolean | Promise<boolean>, what: string, ms = 30_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
