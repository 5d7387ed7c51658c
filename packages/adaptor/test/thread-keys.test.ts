// The thread key rules at the API boundary: one key space for every store, enforced where the Agent
// takes a key, before any store or CLI is touched.
import { describe, expect, it } from "vitest";
import * as threadstore from "@adaptor/threadstore";
import { MemoryThreadStore, type ThreadStore } from "@adaptor/threadstore";
import { Agent, ErrInvalidThreadKey, InvalidThreadKeyError, MAX_THREAD_KEY_BYTES, findError, isError } from "../src/index.js";
import { scriptedDriver } from "./scripted-driver.js";

/** A memory store that counts every call made to it. */
function countingStore(): { store: ThreadStore; calls: string[] } {
  const inner = new MemoryThreadStore();
  const calls: string[] = [];
  const store = new Proxy(inner, {
    get(target, name, receiver) {
      const value = Reflect.get(target, name, receiver) as unknown;
      if (typeof value !== "function") return value;
      return (...args: unknown[]) => {
        calls.push(String(name));
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return { store, calls };
}

/** A driver whose conversations are prompt histories, so crossed threads show in the text. */
function historyDriver() {
  const histories = new Map<string, string[]>();
  let next = 0;
  return scriptedDriver(async (request) => {
    const id = request.session?.resumeId ?? `s${++next}`;
    const history = histories.get(id) ?? [];
    histories.set(id, history);
    history.push(request.prompt);
    return { text: history.join("|"), checkpoint: { resumeId: id } };
  });
}

function thrownBy(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error("expected a throw");
}

const INVALID: readonly [string, string][] = [
  ["a lone high surrogate (slice through an emoji)", `tenant-${"\u{1F600}".slice(0, 1)}`],
  ["a lone low surrogate", "tenant\uDC00"],
  ["a reversed surrogate pair", "\uDC00\uD800"],
  ["a NUL", "tenant\u0000x"],
  ["only whitespace", " "],
  ["a line break", "a\nb"],
  ["an escape sequence", "\u001b[31mred"],
  ["a C1 control", "tenant\u0085"],
  ["a right-to-left override", "\u202e"],
  ["a bidi isolate", "tenant\u2066a"],
  ["a 10 kB key", "k".repeat(10_240)],
  ["one byte over the limit in multi-byte text", "\u00e9".repeat(MAX_THREAD_KEY_BYTES / 2) + "x"],
];

describe("thread keys at the API boundary", () => {
  for (const [what, key] of INVALID) {
    it(`a key with ${what} is refused with InvalidThreadKeyError by thread, resumeOnly, newThread and fork, before any store or driver call`, () => {
      const { store, calls } = countingStore();
      const driver = historyDriver();
      const agent = new Agent(driver, { threadStore: store });
      const attempts: (() => unknown)[] = [
        () => agent.thread(key),
        () => agent.thread(key, { resumeOnly: true }),
        () => agent.newThread(key),
        () => agent.thread("parent").fork(key),
      ];
      for (const attempt of attempts) {
        const err = thrownBy(attempt);
        expect(err).toBeInstanceOf(InvalidThreadKeyError);
        expect(isError(err, ErrInvalidThreadKey)).toBe(true);
        expect(findError(err, InvalidThreadKeyError)?.key === key).toBe(true);
      }
      expect(calls).toEqual([]);
      expect(driver.requests).toHaveLength(0);
    });
  }

  it("the message names the rule and shows the key escaped, shortened for long keys", () => {
    const surrogate = thrownBy(() => new Agent(historyDriver()).thread("tenant\uD800")) as InvalidThreadKeyError;
    expect(surrogate.message).toBe(
      'invalid thread key "tenant\\ud800": contains a lone UTF-16 surrogate at index 6 (not well-formed Unicode)',
    );
    expect(surrogate.reason).toBe("contains a lone UTF-16 surrogate at index 6 (not well-formed Unicode)");
    const long = thrownBy(() => new Agent(historyDriver()).thread("k".repeat(10_240))) as InvalidThreadKeyError;
    expect(long.message).toBe(
      `invalid thread key "${"k".repeat(40)}"… (10240 UTF-16 units): longer than 1024 bytes of UTF-8 (10240 UTF-16 units)`,
    );
  });

  it("an empty key stays a programmer error (TypeError, no sentinel)", () => {
    const err = thrownBy(() => new Agent(historyDriver()).thread(""));
    expect(err).toBeInstanceOf(TypeError);
    expect(isError(err, ErrInvalidThreadKey)).toBe(false);
  });

  it("the root re-exports the key error, its sentinel and the limit as the very objects of @adaptor/threadstore", () => {
    expect(ErrInvalidThreadKey).toBe(threadstore.ErrInvalidThreadKey);
    expect(InvalidThreadKeyError).toBe(threadstore.InvalidThreadKeyError);
    expect(MAX_THREAD_KEY_BYTES).toBe(threadstore.MAX_THREAD_KEY_BYTES);
    expect(MAX_THREAD_KEY_BYTES).toBe(1024);
    // A store's refusal matches the same sentinel the Agent's does.
    expect(isError(new threadstore.InvalidThreadKeyError("x", "why"), ErrInvalidThreadKey)).toBe(true);
  });

  it("keys a lossy backend could fold together stay separate conversations end to end", async () => {
    const agent = new Agent(historyDriver(), { threadStore: new MemoryThreadStore() });
    const keys = [
      "tenant\uFFFD",
      "tenant",
      "Tenant",
      "caf\u00e9",
      "cafe\u0301",
      "a b",
      "a\u00a0b",
      "\u{1F469}\u200D\u{1F4BB}",
      "\u05e9\u05dc\u05d5\u05dd",
      "\u00e9".repeat(MAX_THREAD_KEY_BYTES / 2),
    ];
    for (const [i, key] of keys.entries()) expect((await agent.thread(key).run(`first-${i}`)).text).toBe(`first-${i}`);
    for (const [i, key] of keys.entries()) expect((await agent.thread(key).run(`second-${i}`)).text).toBe(`first-${i}|second-${i}`);
    for (const key of keys) expect((await agent.thread(key).checkpoint())?.key === key).toBe(true);
  });
});
