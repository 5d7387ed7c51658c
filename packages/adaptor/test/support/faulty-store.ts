import { MemoryThreadStore, type ThreadStore } from "@adaptor/threadstore";
import { Agent } from "../../src/index.js";
import { scriptedDriver } from "../scripted-driver.js";

/**
 * `inner` as a custom store would misbehave: its `method` answers `answer(real, args)` instead of
 * the real answer (a promise that never settles: hung; a value: malformed), the real call still
 * made. `calls` counts the calls of `method`.
 */
export function faultyStore(
  inner: MemoryThreadStore,
  method: string,
  answer: (real: unknown, args: unknown[]) => unknown,
): MemoryThreadStore & { readonly calls: number } {
  const counter = { calls: 0 };
  return new Proxy(inner, {
    get(target, prop) {
      if (prop === "calls") return counter.calls;
      const value: unknown = Reflect.get(target, prop, target);
      if (typeof value !== "function") return value;
      return (...args: unknown[]) => {
        const real: unknown = (value as (...a: unknown[]) => unknown).apply(target, args);
        if (prop !== method) return real;
        counter.calls += 1;
        return Promise.resolve(real).then((settled) => answer(settled, args));
      };
    },
  }) as MemoryThreadStore & { readonly calls: number };
}

/** A promise that never settles: a store call that hangs. */
export const hang = (): Promise<never> => new Promise<never>(() => undefined);

/** Whether another owner can take `key`'s lease now (the lease was given back), releasing it again. */
export async function freeForAnotherHost(store: ThreadStore, key: string): Promise<boolean> {
  try {
    await store.releaseLease(await store.acquireLease(key, "other-host", 1000));
    return true;
  } catch {
    return false;
  }
}

/** `work`'s rejection, or `"resolved"`. */
export async function verdict(work: Promise<unknown>): Promise<unknown> {
  return work.then(
    () => "resolved",
    (error: unknown) => error,
  );
}

/** A driver whose every turn answers `ok:<prompt>` and keeps (or starts) session `s1`. */
export function healthyDriver() {
  return scriptedDriver(async (request) => ({ text: `ok:${request.prompt}`, checkpoint: { resumeId: request.session?.resumeId ?? "s1" } }));
}

/** A MemoryThreadStore holding thread `k` after one turn of owner `h`. */
export async function seeded(): Promise<MemoryThreadStore> {
  const inner = new MemoryThreadStore();
  await new Agent(healthyDriver(), { threadStore: inner, owner: "h" }).thread("k").run("first");
  return inner;
}
