// Every public error class is branded with Symbol.for("adaptor.error.<Name>") and every public
// sentinel with Symbol.for("adaptor.sentinel") (DESIGN.md "Errors in TypeScript"): what makes
// identity survive two copies of a package. The checker is unit-tested on deliberately broken
// fixtures so that an unbranded class added later genuinely fails this file.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { AdaptorError, ErrCode, sentinel } from "@adaptor/errors";
import { checkBrands, isErrorClass, looksLikeSentinel, NOT_SENTINELS } from "./support/brand-check.js";
import { SEED_ROWS, sentinelOf } from "./support/seed-002.js";
import { original } from "./support/surface.js";

/** Entry points this check must always cover (they must exist and load). */
const REQUIRED_MODULES = [
  "@adaptor/errors",
  "@adaptor/driver",
  "@adaptor/driver/process",
  "@adaptor/tool",
  "@adaptor/skill",
  "@adaptor/mcp",
  "@adaptor/threadstore",
  "@adaptor/claude",
  "@adaptor/testkit",
  "@adaptor/sessionrecorder",
  "@adaptor/a2a-client",
  "@adaptor/a2a",
  "adaptor",
];

/**
 * Every public entry point of the workspace: each `exports` subpath of each packages/* manifest
 * whose `source` file exists (a package still being scaffolded has no surface yet).
 */
function publicEntryPoints(): string[] {
  const packagesDir = fileURLToPath(new URL("../../", import.meta.url));
  const entries: string[] = [];
  for (const folder of readdirSync(packagesDir)) {
    const manifest = join(packagesDir, folder, "package.json");
    if (!existsSync(manifest)) continue;
    const pkg = JSON.parse(readFileSync(manifest, "utf8")) as {
      name: string;
      exports?: Record<string, { source?: string }>;
    };
    for (const [subpath, target] of Object.entries(pkg.exports ?? {})) {
      if (target.source && existsSync(join(packagesDir, folder, target.source))) entries.push(pkg.name + subpath.slice(1));
    }
  }
  return entries.sort();
}

// A string specifier keeps the compiler from resolving packages `adaptor` does not depend on
// (claude, testkit); vitest still applies its source aliases at run time.
const load = (specifier: string): Promise<Record<string, unknown>> => import(/* @vite-ignore */ specifier);

describe("brand checker (support/brand-check.ts)", () => {
  class GoodError extends AdaptorError {
    static override readonly brand: symbol = Symbol.for("adaptor.error.GoodError");
  }
  const ErrGood = sentinel("adaptor.test.brandCheck.Good", "good");

  it("accepts a correctly branded class and sentinel", () => {
    const report = checkBrands({ "@fixture/ok": { GoodError, ErrGood, helper: () => 1, VERSION: "1.0" } });
    expect(report.problems).toEqual([]);
    expect(report.errorClasses).toEqual(["GoodError"]);
    expect(report.sentinelIds).toEqual(["adaptor.test.brandCheck.Good"]);
  });

  it("rejects an error class that forgot its own static brand (it would inherit its parent's)", () => {
    class RogueError extends AdaptorError {}
    class RogueChildError extends GoodError {}
    const report = checkBrands({ "@fixture/bad": { RogueError, RogueChildError } });
    expect(report.problems).toEqual([
      '@fixture/bad.RogueError: error class RogueError has no own static brand (expected Symbol.for("adaptor.error.RogueError"))',
      '@fixture/bad.RogueChildError: error class RogueChildError has no own static brand (expected Symbol.for("adaptor.error.RogueChildError"))',
    ]);
    // Why it matters: the unbranded subclass is indistinguishable from its parent by brand.
    expect(new GoodError("x") instanceof RogueChildError).toBe(true);
  });

  it("rejects a plain Error subclass", () => {
    class PlainError extends Error {}
    expect(checkBrands({ m: { PlainError } }).problems).toEqual([
      'm.PlainError: error class PlainError has no own static brand (expected Symbol.for("adaptor.error.PlainError"))',
    ]);
  });

  it("rejects a brand that is not Symbol.for(adaptor.error.<ClassName>)", () => {
    class MisnamedError extends AdaptorError {
      static override readonly brand: symbol = Symbol.for("adaptor.error.OtherName");
    }
    class LocalSymbolError extends AdaptorError {
      static override readonly brand: symbol = Symbol("adaptor.error.LocalSymbolError");
    }
    const problems = checkBrands({ m: { MisnamedError, LocalSymbolError } }).problems;
    expect(problems).toHaveLength(2);
    expect(problems[0]).toContain("m.MisnamedError: error class MisnamedError has brand Symbol(adaptor.error.OtherName)");
    expect(problems[1]).toContain("m.LocalSymbolError: error class LocalSymbolError has brand Symbol(adaptor.error.LocalSymbolError)");
  });

  it("rejects a branded class that does not extend AdaptorError (its instances would carry no brand)", () => {
    class StandaloneError extends Error {
      static readonly brand: symbol = Symbol.for("adaptor.error.StandaloneError");
    }
    expect(checkBrands({ m: { StandaloneError } }).problems).toEqual([
      "m.StandaloneError: error class StandaloneError does not extend AdaptorError, so its instances carry no brand",
    ]);
  });

  it("rejects two different classes that share a brand", () => {
    const makeBusy = (): typeof AdaptorError =>
      class BusyError extends AdaptorError {
        static override readonly brand: symbol = Symbol.for("adaptor.error.BusyError");
      };
    const First = makeBusy();
    const Second = makeBusy();
    const report = checkBrands({ "@fixture/a": { BusyError: First }, "@fixture/b": { BusyError: Second } });
    expect(report.problems).toEqual([
      "@fixture/b.BusyError: error class BusyError shares brand Symbol(adaptor.error.BusyError) with a different class at @fixture/a.BusyError",
    ]);
    // The same class re-exported elsewhere (root re-exports) is fine.
    expect(checkBrands({ "@fixture/a": { BusyError: First }, root: { BusyError: First } }).problems).toEqual([]);
  });

  it("rejects sentinel look-alikes without the Symbol.for(adaptor.sentinel) brand", () => {
    const report = checkBrands({
      m: {
        ErrFake: Object.freeze({ id: "adaptor.test.Fake", message: "fake" }),
        notFound: { id: "adaptor.test.NotFound", message: "not found" },
        ErrAsString: "adaptor.test.AsString",
        ErrAsSymbol: Symbol("adaptor.test.AsSymbol"),
      },
    });
    expect(report.problems).toEqual([
      'm.ErrFake: looks like a sentinel but lacks the Symbol.for("adaptor.sentinel") brand',
      'm.notFound: looks like a sentinel but lacks the Symbol.for("adaptor.sentinel") brand',
      "m.ErrAsString: looks like a sentinel but its type is string, not a branded sentinel object",
      "m.ErrAsSymbol: looks like a sentinel but its type is symbol, not a branded sentinel object",
    ]);
  });

  it("rejects an unfrozen copy of a sentinel that duplicates its id", () => {
    const clone = { ...ErrGood };
    const report = checkBrands({ m: { ErrGood, ErrClone: clone } });
    expect(report.problems).toEqual([
      "m.ErrClone: sentinel adaptor.test.brandCheck.Good is not frozen",
      "m.ErrClone: sentinel id adaptor.test.brandCheck.Good is also used by a different object at m.ErrGood",
    ]);
  });

  it("classifies exports narrowly", () => {
    expect(isErrorClass(AdaptorError)).toBe(true);
    expect(isErrorClass(class NotAnError {})).toBe(false);
    expect(isErrorClass(() => undefined)).toBe(false);
    expect(looksLikeSentinel("ErrCode", ErrCode)).toBe(false);
    expect(looksLikeSentinel("Errand", {})).toBe(false);
    expect(looksLikeSentinel("ErrX", {})).toBe(true);
    // The one exemption is what it claims to be: the frozen seed 000 code table, no sentinel brand.
    expect([...NOT_SENTINELS]).toEqual(["ErrCode"]);
    expect(Object.isFrozen(ErrCode)).toBe(true);
    expect(Object.values(ErrCode).every((code) => typeof code === "string")).toBe(true);
  });
});

describe("public surfaces are branded", () => {
  let modules: Record<string, Record<string, unknown>>;

  beforeAll(async () => {
    modules = {};
    for (const specifier of publicEntryPoints()) modules[specifier] = await load(specifier);
  });

  it("loads every public entry point, including the ones this check must cover", () => {
    expect(Object.keys(modules)).toEqual(expect.arrayContaining(REQUIRED_MODULES));
  });

  it("every exported error class has its own Symbol.for brand and every sentinel its brand; no brand is shared", () => {
    const report = checkBrands(modules);
    expect(report.problems).toEqual([]);
  });

  it("adding one unbranded error class to a real surface makes the check fail", () => {
    class UnbrandedThreadError extends AdaptorError {}
    const tampered = { ...modules, adaptor: { ...modules["adaptor"], UnbrandedThreadError } };
    expect(checkBrands(tampered).problems).toEqual([
      'adaptor.UnbrandedThreadError: error class UnbrandedThreadError has no own static brand (expected Symbol.for("adaptor.error.UnbrandedThreadError"))',
    ]);
  });

  it("the check saw the error classes and sentinels of the seed tables (it is not vacuous)", () => {
    const report = checkBrands(modules);
    expect(report.errorClasses).toEqual(
      expect.arrayContaining([
        "AdaptorError",
        "DriverError",
        "RunError",
        "InvalidDriverConfigError",
        "InvalidPolicyError",
        "PolicyCapabilityUnsupportedError",
        "HumanDecisionModeUnsupportedError",
        "InvalidOutputSchemaError",
        "StructuredOutputUnsupportedError",
        "SessionConfigFingerprintError",
        "SkillKeyConflictError",
        "SkillMaterializationError",
        "BusyError",
        "LeaseLostError",
        "AlreadyExistsError",
        "ProtocolError",
        "StreamRecoveryError",
        "DelegationError",
      ]),
    );
    const seedIds = [...new Set(SEED_ROWS.map((row) => sentinelOf(row, original)?.id).filter((id) => id !== undefined))];
    expect(seedIds).toHaveLength(47);
    expect(report.sentinelIds).toEqual(expect.arrayContaining(seedIds));
  });
});
