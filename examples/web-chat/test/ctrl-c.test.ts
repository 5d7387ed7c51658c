import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { isApproval, json, readUntil } from "./support.js";

// Ctrl+C while a task's CLI is running (waiting on an approval card): the web chat's own SIGINT
// handler closes everything and exits 0, with its scratch folders removed.

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");

describe("web chat Ctrl+C", { timeout: 120_000 }, () => {
  it("with a task's CLI running, Ctrl+C exits 0 and removes the scratch folder", async () => {
    const child = spawn(process.execPath, ["--conditions=source", "--import", "tsx", "src/main.ts", "--port", "0"], {
      cwd: ROOT,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((done) => child.once("close", (code) => done(code)));
    const started = new Promise<RegExpMatchArray>((done, fail) => {
      child.stdout.on("data", (chunk: Buffer) => {
        stdout += chunk.toString();
        const match = /web chat: (http:\/\/\S+) .* under (\S+)\)/.exec(stdout);
        if (match) done(match);
      });
      void exited.then(() => fail(new Error(`web chat ended before it started: ${stderr}`)));
    });
    const [, url, projectDir] = await started;
    const response = await fetch(new URL("api/runs", url), {
      method: "POST",
      headers: json,
      body: JSON.stringify({ prompt: "Write down that the README needs examples." }),
    });
    await readUntil(response.body!.getReader(), isApproval); // the CLI is running, waiting for the card
    expect(existsSync(projectDir!)).toBe(true);
    child.kill("SIGINT");
    expect(await exited, stderr).toBe(0);
    expect(existsSync(projectDir!)).toBe(false);
  });
});
