import { fileURLToPath, pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import type { CliProcess } from "./cli-process.js";
import { processGone, waitForProcessGone } from "../kit/process-gone/process-gone.js";
import { killLiveChildren } from "./live-children.js";
import { spawnCli } from "./spawn-cli.js";

const node = process.execPath;
const hangIgnoringSigterm = "process.on('SIGTERM', () => {}); setInterval(() => {}, 1000)";

/**
 * Runs `body` in a separate Node parent (TypeScript through tsx, workspace packages from `src`) after
 * it spawned a SIGTERM-ignoring child `p` with spawnCli (`before` runs before that spawn) and printed
 * `{"child":pid}`.
 */
async function parentWithChild(body: string, before = ""): Promise<{ parent: CliProcess; child: number }> {
  const root = fileURLToPath(new URL("../../../../", import.meta.url));
  const module = pathToFileURL(fileURLToPath(new URL("./spawn-cli.ts", import.meta.url))).href;
  const script = `const { spawnCli } = await import(${JSON.stringify(module)});
${before}
const p = await spawnCli({ command: process.execPath, args: ["-e", ${JSON.stringify(hangIgnoringSigterm)}], killGraceMs: 200 });
${body}
console.log(JSON.stringify({ child: p.pid }));`;
  const parent = await spawnCli({
    command: node,
    args: ["--conditions=source", "--import", "tsx", "--input-type=module", "-e", script],
    cwd: root,
    device: "parent",
    killGraceMs: 1000,
  });
  for await (const line of parent.lines()) {
    if (line.kind === "json") return { parent, child: (line.value as { child: number }).child };
  }
  throw new Error(`parent printed no child pid: ${parent.stderrTail()}`);
}

/** Collects the parent's stdout until it holds `text`; fails after a generous safety net. */
async function waitForOutput(parent: CliProcess, text: string): Promise<string> {
  let seen = "";
  for (const end = Date.now() + 15_000; !seen.includes(text) && Date.now() < end; await new Promise((r) => setTimeout(r, 50))) {
    seen += parent.takeOutput().stdout;
  }
  expect(seen).toContain(text);
  return seen;
}

/**
 * A host shutdown handler as the docs recommend (async, awaits the SDK's close): it reports, waits
 * for our go-ahead (a stdin line), ends the child itself, reports again and exits with code 7.
 */
const hostShutdown = (register: string): string =>
  `process.${register}('SIGTERM', async () => {
  console.log(JSON.stringify({ handled: true }));
  await new Promise((r) => process.stdin.once('data', r));
  await p.close();
  console.log(JSON.stringify({ closed: true }));
  process.exit(7);
});`;

/** Signals the parent, checks the host's handler runs to its end while the child lives on meanwhile. */
async function expectHostOwnsShutdown(parent: CliProcess, child: number): Promise<void> {
  process.kill(parent.pid, "SIGTERM"); // the parent alone, not its group
  await waitForOutput(parent, '{"handled":true}');
  expect(processGone(child)).toBe(false); // the host is still shutting down: the SDK left SIGTERM to it
  await parent.writeText("go\n");
  expect(await parent.exited).toEqual({ code: 7, signal: null, forceKilled: false });
  expect(parent.takeOutput().stdout).toContain('{"closed":true}');
  expect(await waitForProcessGone(child)).toBe(true);
}

describe("live children", () => {
  it("installs one process 'exit' listener for any number of children and removes it after the last is reaped", async () => {
    const before = process.listenerCount("exit");
    const a = await spawnCli({ command: node, args: ["-e", "setInterval(() => {}, 1000)"] });
    const b = await spawnCli({ command: node, args: ["-e", "setInterval(() => {}, 1000)"] });
    const c = await spawnCli({ command: node, args: ["-e", "setInterval(() => {}, 1000)"] });
    expect(process.listenerCount("exit")).toBe(before + 1);
    expect(process.listenerCount("SIGTERM")).toBe(1);
    await Promise.all([a.close(), b.close(), c.close()]);
    expect(process.listenerCount("exit")).toBe(before);
    expect(process.listenerCount("SIGTERM")).toBe(0);
  });

  it("killLiveChildren SIGKILLs the group of every live child", async () => {
    const proc = await spawnCli({ command: node, args: ["-e", hangIgnoringSigterm] });
    killLiveChildren();
    expect(await proc.exited).toEqual({ code: null, signal: "SIGKILL", forceKilled: false });
    await proc.close();
  });

  it("a parent process that exits leaves no live child behind", async () => {
    const { parent, child } = await parentWithChild("setTimeout(() => process.exit(0), 50);");
    expect((await parent.exited).code).toBe(0);
    expect(await waitForProcessGone(child)).toBe(true);
  });

  it("a parent killed by SIGTERM kills its children first and still dies by SIGTERM", async () => {
    const { parent, child } = await parentWithChild("setInterval(() => {}, 1000);");
    process.kill(parent.pid, "SIGTERM"); // the parent alone, not its group
    expect(await parent.exited).toEqual({ code: null, signal: "SIGTERM", forceKilled: false });
    expect(await waitForProcessGone(child)).toBe(true);
  });

  it("leaves SIGTERM to an application that handles it; its process.exit() still kills the children", async () => {
    // The app's handler reports, then waits for our go-ahead (a stdin line) before its process.exit(5).
    const { parent, child } = await parentWithChild(
      "process.on('SIGTERM', () => { console.log(JSON.stringify({ handled: true })); process.stdin.once('data', () => process.exit(5)); }); setInterval(() => {}, 1000);",
    );
    process.kill(parent.pid, "SIGTERM");
    let seen = "";
    for (
      const end = Date.now() + 15_000;
      !seen.includes('{"handled":true}') && Date.now() < end;
      await new Promise((r) => setTimeout(r, 50))
    ) {
      seen += parent.takeOutput().stdout;
    }
    expect(seen).toContain('{"handled":true}');
    expect(processGone(child)).toBe(false); // the app is still shutting down: the SDK left SIGTERM to it
    await parent.writeText("go\n");
    expect((await parent.exited).code).toBe(5);
    expect(await waitForProcessGone(child)).toBe(true);
  });

  it("leaves SIGTERM to a host `once` handler registered before the first child, to the end of its async shutdown", async () => {
    const { parent, child } = await parentWithChild("", hostShutdown("once"));
    await expectHostOwnsShutdown(parent, child);
  });

  it("leaves SIGTERM to a host `once` handler registered after the first child", async () => {
    const { parent, child } = await parentWithChild(hostShutdown("once"));
    await expectHostOwnsShutdown(parent, child);
  });

  it("leaves SIGTERM to a host handler prepended with prependOnceListener after the first child", async () => {
    const { parent, child } = await parentWithChild(hostShutdown("prependOnceListener"));
    await expectHostOwnsShutdown(parent, child);
  });

  it("still ends the children and dies by SIGTERM once the host removed its own handler", async () => {
    const { parent, child } = await parentWithChild(
      "process.off('SIGTERM', onTerm); setInterval(() => {}, 1000);",
      "const onTerm = () => {}; process.on('SIGTERM', onTerm);",
    );
    process.kill(parent.pid, "SIGTERM");
    expect(await parent.exited).toEqual({ code: null, signal: "SIGTERM", forceKilled: false });
    expect(await waitForProcessGone(child)).toBe(true);
  });

  it("an unref'd child lets its parent exit by itself, and the parent's exit ends it", async () => {
    const { parent, child } = await parentWithChild("p.unref();");
    expect(await parent.exited).toEqual({ code: 0, signal: null, forceKilled: false });
    expect(await waitForProcessGone(child)).toBe(true);
  });

  it("close() of an unref'd child holds the parent until the child was reaped", async () => {
    const { parent, child } = await parentWithChild(
      "p.unref(); console.log(JSON.stringify({ child: p.pid })); await p.close(); console.log(JSON.stringify({ closed: await p.exited }));",
    );
    expect(await parent.exited).toEqual({ code: 0, signal: null, forceKilled: false });
    // SIGTERM, or SIGKILL after the grace when the child had installed its SIGTERM handler already
    expect(parent.takeOutput().stdout).toMatch(/\{"closed":\{"code":null,"signal":"SIG(TERM|KILL)"/);
    expect(await waitForProcessGone(child)).toBe(true);
  });
});
