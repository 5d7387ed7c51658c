import { describe, expect, it } from "vitest";
import { DriverError, ErrCode, findError } from "@adaptor/errors";
import type { DriverEvent } from "../../spi/events.js";
import type { DriverSink } from "../../spi/driver.js";
import { ProcessPool, type PooledProcess } from "./process-pool.js";

class FakeProcess implements PooledProcess {
  /**
   * The pool also asks the OS whether a process is gone (`processGone(pid)`): a fake names this test
   * process, which is alive, so only `alive` / `close()` decide whether it is usable (a made-up pid
   * names whatever process, if any, holds that number on the machine now).
   */
  readonly pid = process.pid;
  closed = 0;
  alive = true;
  constructor(
    readonly signature: string,
    public version: string | undefined = undefined,
  ) {}
  get usable(): boolean {
    return this.alive && this.closed === 0;
  }
  /** Whether it holds the host (`ref`, the default) or not (`unref`). */
  held = true;
  close(): Promise<void> {
    this.closed++;
    return Promise.resolve();
  }
  unref(): void {
    this.held = false;
  }
  ref(): void {
    this.held = true;
  }
}

function sink(): DriverSink & { events: DriverEvent[] } {
  const events: DriverEvent[] = [];
  return { events, emit: (e) => void events.push(e), requestApproval: () => Promise.resolve({ outcome: "deny", reason: "test" }) };
}

const resume = (resumeId: string, extra: { fork?: boolean } = {}) => ({ session: { resumeId, ...extra }, reuseProcess: true });

async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 10));
}

/** Pre-warms `process` under its signature with a handshake that succeeds at once. */
function prewarmReady(pool: ProcessPool<FakeProcess>, process: FakeProcess): Promise<void> {
  return pool.prewarm(
    process.signature,
    () => Promise.resolve(process),
    () => Promise.resolve(),
    new AbortController().signal,
    "fake",
  );
}

describe("ProcessPool", () => {
  it("hands a parked process to exactly one turn of its conversation launched alike and at the checkpoint's version", async () => {
    const pool = new ProcessPool<FakeProcess>();
    const p = new FakeProcess("sig", "m2");
    pool.park("t1", p);
    const s = sink();
    expect(await pool.acquire({ request: resume("t1"), signature: "sig", version: "m2", sink: s })).toBe(p);
    expect(s.events).toEqual([{ type: "notice", kind: "lifecycle", message: "process reused", data: { pid: p.pid } }]);
    expect(await pool.acquire({ request: resume("t1"), signature: "sig", version: "m2", sink: s })).toBeUndefined(); // single writer
    expect(pool.parkedCount).toBe(0);
    await pool.close();
    expect(p.closed).toBe(0); // taken: the driver owns it now
  });

  it("holdsParked tells whether a live process is parked on a conversation, without taking or ending it", async () => {
    const pool = new ProcessPool<FakeProcess>();
    const p = new FakeProcess("sig", "m1");
    expect(pool.holdsParked("t1")).toBe(false);
    pool.park("t1", p);
    expect({ t1: pool.holdsParked("t1"), other: pool.holdsParked("t2"), parked: pool.parkedCount, closed: p.closed }).toEqual({
      t1: true,
      other: false,
      parked: 1,
      closed: 0,
    });
    p.alive = false;
    expect(pool.holdsParked("t1")).toBe(false);
    p.alive = true;
    expect(await pool.acquire({ request: resume("t1"), signature: "sig", version: "m1", sink: sink() })).toBe(p);
    expect(pool.holdsParked("t1")).toBe(false);
    await pool.close();
  });

  it("parked and pre-warmed processes do not hold the host; the turn that takes one holds it again", async () => {
    const pool = new ProcessPool<FakeProcess>();
    const parked = new FakeProcess("sig", "m1");
    pool.park("t1", parked);
    expect(parked.held).toBe(false);
    const warm = new FakeProcess("sig");
    await prewarmReady(pool, warm);
    expect(warm.held).toBe(false);
    expect(await pool.acquire({ request: resume("t1"), signature: "sig", version: "m1", sink: sink() })).toBe(parked);
    expect(parked.held).toBe(true);
    expect(await pool.acquire({ request: {}, signature: "sig", sink: sink() })).toBe(warm);
    expect(warm.held).toBe(true);
    await pool.close();
  });

  it("replaces instead of reusing: another signature, another version, a dead process; each is ended", async () => {
    const pool = new ProcessPool<FakeProcess>();
    const cases: [FakeProcess, { signature: string; version?: string }][] = [
      [new FakeProcess("old"), { signature: "new" }],
      [new FakeProcess("sig", "m1"), { signature: "sig", version: "m2" }],
      [Object.assign(new FakeProcess("sig"), { alive: false }), { signature: "sig" }],
    ];
    for (const [process, turn] of cases) {
      pool.park("t", process);
      expect(await pool.acquire({ request: resume("t"), ...turn, sink: sink() })).toBeUndefined();
      expect(process.closed).toBe(1);
    }
  });

  it("a turn of the conversation in a fresh process ends the parked one first (single writer); a fork leaves it", async () => {
    const pool = new ProcessPool<FakeProcess>();
    const parked = new FakeProcess("sig");
    pool.park("t", parked);
    expect(await pool.acquire({ request: resume("t", { fork: true }), signature: "sig", sink: sink() })).toBeUndefined();
    expect(parked.closed).toBe(0);
    expect(await pool.acquire({ request: { session: { resumeId: "t" } }, signature: "sig", sink: sink() })).toBeUndefined();
    expect(parked.closed).toBe(1);
    expect(pool.parkedCount).toBe(0);
  });

  it("parking another process under the same conversation ends the first", async () => {
    const pool = new ProcessPool<FakeProcess>();
    const first = new FakeProcess("sig");
    const second = new FakeProcess("sig");
    pool.park("t", first);
    pool.park("t", second);
    await until(() => first.closed === 1);
    expect(pool.parkedCount).toBe(1);
    await pool.close();
    expect(second.closed).toBe(1);
  });

  it("a fresh conversation takes a pre-warmed process of its signature only, announced as prewarmed", async () => {
    const pool = new ProcessPool<FakeProcess>();
    const warm = new FakeProcess("sig");
    await prewarmReady(pool, warm);
    expect(pool.prewarmedCount).toBe(1);
    expect(await pool.acquire({ request: {}, signature: "other", sink: sink() })).toBeUndefined();
    const s = sink();
    expect(await pool.acquire({ request: {}, signature: "sig", sink: s })).toBe(warm);
    expect(s.events[0]).toMatchObject({ message: "process reused", data: { pid: warm.pid, prewarmed: true } });
    expect(pool.prewarmedCount).toBe(0);
  });

  it("prewarm ends the process and rethrows when the handshake fails, and refuses one that died during it", async () => {
    const pool = new ProcessPool<FakeProcess>();
    const failing = new FakeProcess("sig");
    const boom = new Error("handshake failed");
    await expect(
      pool.prewarm(
        "sig",
        () => Promise.resolve(failing),
        () => Promise.reject(boom),
        new AbortController().signal,
        "fake",
      ),
    ).rejects.toBe(boom);
    expect(failing.closed).toBe(1);
    const dying = new FakeProcess("sig");
    const ready = async (p: FakeProcess) => void (p.alive = false);
    await expect(pool.prewarm("sig", () => Promise.resolve(dying), ready, new AbortController().signal, "fake")).rejects.toThrow(
      "fake ended before it was ready",
    );
    expect(dying.closed).toBe(1);
    expect(pool.prewarmedCount).toBe(0);
  });

  it("prewarm after close() ends the process instead of keeping it, and one readied while close() runs too", async () => {
    const pool = new ProcessPool<FakeProcess>();
    let release: (() => void) | undefined;
    const slow = new FakeProcess("sig");
    const slowReady = pool.prewarm(
      "sig",
      () => Promise.resolve(slow),
      () => new Promise<void>((resolve) => (release = resolve)),
      new AbortController().signal,
      "fake",
    );
    await until(() => release !== undefined);
    const closing = pool.close(); // ends the process being readied (tracked as live)
    release!();
    await closing;
    await expect(slowReady).rejects.toSatisfy((e: unknown) => findError(e, DriverError)?.code === ErrCode.ServiceUnavailable);
    const late = new FakeProcess("sig");
    await expect(
      pool.prewarm(
        "sig",
        () => Promise.resolve(late),
        () => Promise.resolve(),
        new AbortController().signal,
        "fake",
      ),
    ).rejects.toSatisfy((e: unknown) => findError(e, DriverError)?.code === ErrCode.ServiceUnavailable);
    expect(slow.closed).toBeGreaterThan(0);
    expect(late.closed).toBe(1);
    expect(pool.prewarmedCount).toBe(0);
  });

  it("idle parked and pre-warmed processes are ended after idleMs", async () => {
    const pool = new ProcessPool<FakeProcess>({ idleMs: 20 });
    const parked = new FakeProcess("sig");
    const warm = new FakeProcess("sig");
    pool.park("t", parked);
    await prewarmReady(pool, warm);
    await until(() => parked.closed === 1 && warm.closed === 1);
    expect(pool.parkedCount + pool.prewarmedCount).toBe(0);
  });

  it("close() ends live, parked and pre-warmed processes; spawn() runs at most maxConcurrentSpawns at once", async () => {
    const pool = new ProcessPool<FakeProcess>({ maxConcurrentSpawns: 2 });
    const live = new FakeProcess("a");
    const parked = new FakeProcess("b");
    pool.park("t", parked);
    let running = 0;
    let peak = 0;
    const release: (() => void)[] = [];
    const spawns = Array.from({ length: 5 }, () =>
      pool.spawn(async () => {
        running++;
        peak = Math.max(peak, running);
        await new Promise<void>((resolve) => release.push(resolve));
        running--;
      }),
    );
    await until(() => release.length === 2);
    while (release.length > 0 || running > 0) {
      release.shift()?.();
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    await Promise.all(spawns);
    expect(peak).toBe(2);
    const served = pool.serve(live, () => pool.close());
    await served;
    expect([live.closed, parked.closed]).toEqual([1, 1]);
  });

  it("the driver's beforeEnd runs before every end of a parked process (evict, a turn it cannot serve, the idle timeout, close), never for a live one; its rejection still ends the process", async () => {
    const order: string[] = [];
    const pool = new ProcessPool<FakeProcess>({ idleMs: 20 }, async (key, process) => {
      order.push(`before ${key} closed=${process.closed}`);
      if (key === "idle") throw new Error("unlink failed");
    });
    const watched = (key: string, signature = "sig"): FakeProcess => {
      const process = new FakeProcess(signature);
      const close = process.close.bind(process);
      process.close = () => {
        order.push(`close ${key}`);
        return close();
      };
      return process;
    };
    pool.park("evicted", watched("evicted"));
    await pool.evict("evicted");
    pool.park("replaced", watched("replaced", "old"));
    expect(await pool.acquire({ request: resume("replaced"), signature: "new", sink: sink() })).toBeUndefined();
    const idle = watched("idle");
    pool.park("idle", idle);
    await until(() => idle.closed === 1);
    pool.park("closed", watched("closed"));
    const live = watched("live");
    await pool.serve(live, () => pool.close());
    expect(order).toEqual([
      "before evicted closed=0",
      "close evicted",
      "before replaced closed=0",
      "close replaced",
      "before idle closed=0",
      "close idle",
      "close live",
      "before closed closed=0",
      "close closed",
    ]);
  });
});
