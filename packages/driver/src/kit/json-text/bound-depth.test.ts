import { describe, expect, it } from "vitest";
import { boundDepth, JSON_DEPTH_MAX, JSON_DEPTH_PLACEHOLDER, nestsDeeperThan } from "./bound-depth.js";

function nested(depth: number): unknown {
  let value: unknown = [];
  for (let i = 1; i < depth; i++) value = [value];
  return value;
}

describe("boundDepth", () => {
  it("returns a value that fits as it is, the same object", () => {
    const value = { a: [1, { b: "c" }], d: null };
    expect(boundDepth(value)).toBe(value);
    const edge = nested(JSON_DEPTH_MAX);
    expect(nestsDeeperThan(edge)).toBe(false);
    expect(boundDepth(edge)).toBe(edge);
  });

  it("cuts a value nested 200000 levels to one JSON encodes, the placeholder at level 65", () => {
    const deep = nested(200_000);
    expect(nestsDeeperThan(deep)).toBe(true);
    const cut = boundDepth(deep);
    let text = "";
    expect(() => (text = JSON.stringify(cut))).not.toThrow();
    expect(text).toBe("[".repeat(JSON_DEPTH_MAX) + JSON.stringify(JSON_DEPTH_PLACEHOLDER) + "]".repeat(JSON_DEPTH_MAX));
  });

  it("copies only the path to a cut, never changes the value, keeps a __proto__ key an own property", () => {
    const shallow = { s: 1 };
    const value = JSON.parse(
      `{"__proto__":{"polluted":true},"keep":${JSON.stringify(shallow)},"deep":${"[".repeat(100)}${"]".repeat(100)}}`,
    ) as Record<string, unknown>;
    const before = JSON.stringify(value);
    const cut = boundDepth(value, 3);
    expect(JSON.stringify(value)).toBe(before);
    expect(cut).not.toBe(value);
    expect(cut["keep"]).toBe(value["keep"]);
    expect(Object.getOwnPropertyNames(cut)).toEqual(["__proto__", "keep", "deep"]);
    expect(({} as Record<string, unknown>)["polluted"]).toBeUndefined();
    expect(JSON.stringify(cut["deep"])).toBe(`[[${JSON.stringify(JSON_DEPTH_PLACEHOLDER)}]]`);
  });

  it("a cyclic value counts as too deep and is cut where it repeats", () => {
    const cyclic: Record<string, unknown> = {};
    cyclic["self"] = cyclic;
    expect(nestsDeeperThan(cyclic, 4)).toBe(true);
    expect(JSON.stringify(boundDepth(cyclic, 2))).toBe(`{"self":${JSON.stringify(JSON_DEPTH_PLACEHOLDER)}}`);
  });
});

describe("boundDepth of a cycle that branches", () => {
  it("a cyclic value whose object refers to itself twice is cut at once where it repeats, not copied 2^64 times", () => {
    const cyclic: Record<string, unknown> = { n: 1 };
    cyclic["a"] = cyclic;
    cyclic["b"] = cyclic;
    const cut = boundDepth(cyclic) as Record<string, unknown>;
    expect(JSON.stringify(cut)).toBe(`{"n":1,"a":${JSON.stringify(JSON_DEPTH_PLACEHOLDER)},"b":${JSON.stringify(JSON_DEPTH_PLACEHOLDER)}}`);
  });
});
