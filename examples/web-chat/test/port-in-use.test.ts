import { spawn } from "node:child_process";
import { createServer } from "node:net";
import type { AddressInfo } from "node:net";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

// `--port` on a busy port: one line saying what to do, exit code 1, no stack trace.

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");

function runMain(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, ["--conditions=source", "--import", "tsx", "src/main.ts", ...args], {
      cwd: ROOT,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.on("error", fail);
    child.on("close", (code) => done({ code, stdout, stderr }));
  });
}

describe("web chat command line", { timeout: 60_000 }, () => {
  it("a busy --port prints 'port N is in use, try --port' and exits 1, without a stack trace", async () => {
    const busy = createServer();
    await new Promise<void>((done) => busy.listen(0, "127.0.0.1", done));
    const port = (busy.address() as AddressInfo).port;
    try {
      const { code, stdout, stderr } = await runMain(["--port", String(port)]);
      expect(code).toBe(1);
      expect(stdout).toBe("");
      expect(stderr.trim()).toBe(`web chat: port ${port} is in use, try --port <another port> (or --port 0 for a free one)`);
    } finally {
      await new Promise<void>((done) => busy.close(() => done()));
    }
  });

  it("a --port that is no port number is refused with exit code 2 before anything starts", async () => {
    const { code, stderr } = await runMain(["--port", "eighty"]);
    expect(code).toBe(2);
    expect(stderr.trim()).toBe('web chat: --port needs a port number from 0 to 65535, got "eighty"');
  });
});
