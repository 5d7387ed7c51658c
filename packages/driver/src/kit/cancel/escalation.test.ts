import { describe, expect, it } from "vitest";
import { spawnCli } from "../../process/spawn-cli.js";
import { exitOrTerminate, InterruptEscalation, raceAbort, within } from "./escalation.js";

/** A node child running `script` (which ignores SIGTERM), resolved once its handlers are installed (it printed "ready"). */
async function child(script: string) {
  const proc = await spawnCli({
    command: process.execPath,
    args: ["-e", `${script} console.log("ready");`],
    device: "child",
    killGraceMs: 200,
  });
  const lines = proc.lines()[Symbol.asyncIterator]();
  while ((await lines.next()).value?.text !== "ready");
  return Object.assign(proc, { rest: lines });
}

const POLITE = `process.stdin.on("data", (d) => { if (String(d).includes("interrupt")) console.log("interrupted"); }); process.stdin.on("end", () => process.exit(0)); process.on("SIGTERM", () => {});`;
const DEAF = `process.on("SIGTERM", () => {}); setInterval(() => {}, 1000); process.stdin.resume();`;

describe("within", () => {
  it("is true for a promise that settles (either way) in time, false otherwise", async () => {
    expect(await within(Promise.reject(new Error("x")), 1000)).toBe(true);
    expect(await within(new Promise(() => undefined), 10)).toBe(false);
  });
});

describe("InterruptEscalation", () => {
  it("a CLI that honours the interrupt and exits on EOF is never signalled", async () => {
    await using proc = await child(POLITE);
    let honoured!: () => void;
    const turnEnded = new Promise<void>((resolve) => (honoured = resolve));
    const cancel = new InterruptEscalation(proc, {
      graceMs: 30_000,
      honoured: turnEnded,
      interrupt: () => {
        void proc.writeText("interrupt\n");
        return true;
      },
    });
    cancel.start();
    cancel.start(); // idempotent
    while ((await proc.rest.next()).value?.text !== "interrupted");
    honoured();
    await cancel.settled();
    const exit = await proc.exited;
    expect(exit).toMatchObject({ code: 0, signal: null, forceKilled: false });
  });

  it("a CLI that ignores the interrupt and SIGTERM is SIGKILLed after the graces (forceKilled)", async () => {
    await using proc = await child(DEAF);
    const cancel = new InterruptEscalation(proc, { graceMs: 50, interrupt: () => true });
    cancel.start();
    await cancel.settled();
    expect((await proc.exited).forceKilled).toBe(true);
  });

  it("nothing to interrupt yet: terminated at once, without waiting for the (endless) grace", async () => {
    await using proc = await child(DEAF);
    const cancel = new InterruptEscalation(proc, { graceMs: 2 ** 31 - 1, interrupt: () => false });
    cancel.start();
    expect(cancel.started).toBe(true);
    await cancel.settled();
    expect((await proc.exited).forceKilled).toBe(true); // it ignores SIGTERM, so the group was SIGKILLed after killGraceMs
  });
});

describe("exitOrTerminate", () => {
  it("lets a process exit on its own within the grace, else terminates it and says so first", async () => {
    await using polite = await child(POLITE);
    polite.closeStdin();
    let told = false;
    expect(await exitOrTerminate(polite, 30_000, () => (told = true))).toMatchObject({ code: 0 });
    expect(told).toBe(false);
    await using deaf = await child(DEAF);
    expect((await exitOrTerminate(deaf, 20, () => (told = true))).forceKilled).toBe(true);
    expect(told).toBe(true);
  });
});

describe("raceAbort", () => {
  it("settles like the work when no abort comes, and leaves no listener behind", async () => {
    const controller = new AbortController();
    await expect(raceAbort(Promise.resolve(7), controller.signal)).resolves.toBe(7);
    const boom = new Error("boom");
    await expect(raceAbort(Promise.reject(boom), controller.signal)).rejects.toBe(boom);
  });

  it("rejects with the abort reason when the signal aborts first, or already did; the work's later failure stays handled", async () => {
    const controller = new AbortController();
    let fail!: (e: unknown) => void;
    const work = new Promise<never>((_, reject) => (fail = reject));
    const raced = raceAbort(work, controller.signal);
    const reason = new Error("cancelled");
    controller.abort(reason);
    await expect(raced).rejects.toBe(reason);
    fail(new Error("late")); // must not be an unhandled rejection
    await expect(raceAbort(new Promise(() => undefined), controller.signal)).rejects.toBe(reason);
  });
});
