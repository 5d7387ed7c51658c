import { readFileSync } from "node:fs";
import { fileURLToPath, pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { spawnCli } from "./spawn-cli.js";

const root = fileURLToPath(new URL("../../../../", import.meta.url));
const spawnModule = pathToFileURL(fileURLToPath(new URL("./spawn-cli.ts", import.meta.url))).href;

/**
 * A CLI that starts a helper in its own session (it ignores SIGTERM, so ending it takes the whole
 * kill grace), prints the helper's pid and exits once its stdin closes: the helper outlives it.
 */
const cliLeavingAHelper = `
const { spawn } = require("node:child_process");
const helper = spawn(process.execPath, ["-e", "process.on('SIGTERM', () => {}); setInterval(() => {}, 1000)"], { detached: true, stdio: "ignore" });
helper.unref();
console.log(JSON.stringify({ helper: helper.pid }));
process.stdin.resume();
process.stdin.on("end", () => process.exit(0));
`;

/** Gone: no such process, or a zombie whose reaper is not us. */
function isGone(pid: number): boolean {
  try {
    return /^\d+ \(.*\) Z/s.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return true;
  }
}

/** Runs `body` as a top-level-await ES module in a separate Node process (workspace sources through tsx). */
async function runHost(body: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const host = await spawnCli({
    command: process.execPath,
    args: ["--conditions=source", "--import", "tsx", "--input-type=module", "-e", body],
    cwd: root,
    device: "host",
    killGraceMs: 1000,
  });
  const exit = await host.exited;
  const output = host.takeOutput();
  return { code: exit.code, stdout: output.stdout, stderr: output.stderr };
}

describe.skipIf(process.platform !== "linux")("a host awaiting the end of a CLI process", () => {
  it("is held while close() ends what the exited CLI left running (no exit 13)", async () => {
    const { code, stdout, stderr } = await runHost(`
const { spawnCli } = await import(${JSON.stringify(spawnModule)});
const p = await spawnCli({ command: process.execPath, args: ["-e", ${JSON.stringify(cliLeavingAHelper)}], killGraceMs: 1000 });
for await (const line of p.lines()) { console.log(JSON.stringify(line.value)); break; }
p.closeStdin();
console.log(JSON.stringify({ exited: (await p.exited).code }));
await p.close();
console.log(JSON.stringify({ closed: true }));
`);
    const lines = stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    const helper = lines[0]!["helper"] as number;
    const gone = isGone(helper);
    if (!gone) process.kill(helper, "SIGKILL"); // a host that exited early left it running
    expect(lines.slice(1)).toEqual([{ exited: 0 }, { closed: true }]);
    expect({ code, stderr, gone }).toEqual({ code: 0, stderr: "", gone: true }); // ended by close()
  });

  it("is held while terminate() ends what the exited CLI left running (no exit 13)", async () => {
    const { code, stdout } = await runHost(`
const { spawnCli } = await import(${JSON.stringify(spawnModule)});
const p = await spawnCli({ command: process.execPath, args: ["-e", ${JSON.stringify(cliLeavingAHelper)}], killGraceMs: 1000 });
for await (const line of p.lines()) { console.log(JSON.stringify(line.value)); break; }
p.closeStdin();
await p.exited;
console.log(JSON.stringify({ terminated: await p.terminate() }));
await p.close();
`);
    const [first, ...rest] = stdout.trim().split("\n");
    const helper = (JSON.parse(first!) as { helper: number }).helper;
    const gone = isGone(helper);
    if (!gone) process.kill(helper, "SIGKILL"); // a host that exited early left it running
    expect(rest.map((line) => JSON.parse(line) as unknown)).toEqual([{ terminated: { code: 0, signal: null, forceKilled: false } }]);
    expect({ code, gone }).toEqual({ code: 0, gone: true });
  });

  it("is not held by a parked (unref'd) CLI nobody awaits", async () => {
    const { code, stdout } = await runHost(`
const { spawnCli } = await import(${JSON.stringify(spawnModule)});
const p = await spawnCli({ command: process.execPath, args: ["-e", "setInterval(() => {}, 1000)"], killGraceMs: 1000 });
p.unref();
console.log(JSON.stringify({ parked: p.pid }));
`);
    expect(code).toBe(0);
    expect(Object.keys(JSON.parse(stdout.trim()) as object)).toEqual(["parked"]);
  });
});
