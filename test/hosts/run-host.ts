import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

/**
 * Runs the host program `file` (TypeScript through tsx, workspace packages from `src`) with
 * `config` as JSON in `ADAPTOR_HOST`; resolves with its exit code (null: killed by the safety net
 * after `safetyNetMs`) and what it printed.
 */
export function runHost(
  file: string,
  config: unknown,
  safetyNetMs: number,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, ["--conditions=source", "--import", "tsx", file], {
    cwd: ROOT,
    env: { ...process.env, ADAPTOR_HOST: JSON.stringify(config) },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const net = setTimeout(() => child.kill("SIGKILL"), safetyNetMs);
  return new Promise((resolve) =>
    child.once("close", (code) => {
      clearTimeout(net);
      resolve({ code, stdout, stderr });
    }),
  );
}
