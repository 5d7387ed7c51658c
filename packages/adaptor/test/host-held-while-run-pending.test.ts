import { spawn } from "node:child_process";
import { fileURLToPath, pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const ADAPTOR = pathToFileURL(fileURLToPath(new URL("../src/index.ts", import.meta.url))).href;
const SCRIPTED = pathToFileURL(fileURLToPath(new URL("./scripted-driver.ts", import.meta.url))).href;

/** Runs `body` as a top-level-await module in a separate Node process; resolves with its exit code and stdout. */
function runHost(body: string): Promise<{ code: number | null; stdout: string }> {
  const child = spawn(process.execPath, ["--conditions=source", "--import", "tsx", "--input-type=module", "-e", body], {
    cwd: ROOT,
    stdio: ["ignore", "pipe", "inherit"],
  });
  let stdout = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  const net = setTimeout(() => child.kill("SIGKILL"), 60_000);
  return new Promise((resolve) =>
    child.once("close", (code) => {
      clearTimeout(net);
      resolve({ code, stdout });
    }),
  );
}

// The driver's only pending handle is an unref'd timer, as when a driver waits on a parked
// (unref'd) process or on its own unref'd timers: only the Agent can hold the host.
const waitsOnUnrefdHandles = `
const { scriptedDriver } = await import(${JSON.stringify(SCRIPTED)});
const { Agent } = await import(${JSON.stringify(ADAPTOR)});
const unrefdWait = () => new Promise((resolve) => setTimeout(resolve, 1000).unref());
const agent = new Agent(
  scriptedDriver(async () => { await unrefdWait(); return { text: "answered" }; }, { close: unrefdWait }),
);
console.log(JSON.stringify({ text: (await agent.run("hello")).text }));
await agent.close();
console.log(JSON.stringify({ closed: true }));
`;

describe("a host whose only work is awaiting the Agent", () => {
  it("is held while a run and close() are pending, even when the driver holds nothing (no exit 13)", async () => {
    const { code, stdout } = await runHost(waitsOnUnrefdHandles);
    expect(code).toBe(0);
    expect(stdout.trim().split("\n")).toEqual(['{"text":"answered"}', '{"closed":true}']);
  });

  it("exits by itself once nothing is pending", async () => {
    const { code, stdout } = await runHost(`
const { scriptedDriver } = await import(${JSON.stringify(SCRIPTED)});
const { Agent } = await import(${JSON.stringify(ADAPTOR)});
const agent = new Agent(scriptedDriver(async () => ({ text: "answered" })));
console.log(JSON.stringify({ text: (await agent.run("hello")).text }));
`);
    expect(code).toBe(0);
    expect(stdout.trim()).toBe('{"text":"answered"}');
  });
});
