// The conformance kit's own test: it runs the kit (in a child vitest) against a good one-shot
// driver and against deliberately broken variants of it, and checks that the good driver passes
// every clause that applies and each variant fails exactly the clause that pins what it breaks.
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BREAKS, CLAUSES } from "./conformance-kit/breaks.js";

const here = dirname(fileURLToPath(import.meta.url));
const repo = resolve(here, "..", "..", "..");
const out = mkdtempSync(join(tmpdir(), "adaptor-kit-meta-"));
afterAll(() => rmSync(out, { recursive: true, force: true }));

interface Assertion {
  readonly ancestorTitles: string[];
  readonly title: string;
  readonly status: string;
}

/** Status of each clause of each suite, e.g. `results["mycli good"]["6.4"] === "passed"`. */
const results: Record<string, Record<string, string>> = {};

beforeAll(async () => {
  const file = join(out, "report.json");
  // The child fails (exit 1) because the broken variants do: the report is what counts.
  await promisify(execFile)(
    process.execPath,
    [
      join(repo, "node_modules", "vitest", "vitest.mjs"),
      "run",
      "--config",
      join(here, "conformance-kit", "vitest.config.ts"),
      "--reporter=json",
      `--outputFile=${file}`,
    ],
    { cwd: repo, maxBuffer: 64 * 1024 * 1024 },
  ).catch(() => undefined);
  const report = JSON.parse(readFileSync(file, "utf8")) as { testResults: { assertionResults: Assertion[] }[] };
  for (const assertion of report.testResults.flatMap((r) => r.assertionResults)) {
    const suite = assertion.ancestorTitles[0]?.replace("driver conformance: ", "") ?? "";
    const id = assertion.title.split(" ")[0] ?? "";
    (results[suite] ??= {})[id] = assertion.status;
  }
}, 300_000);

describe("the conformance kit against a good driver and its broken variants", () => {
  it("the good one-shot driver passes every clause that applies; 7.1 (prompt-mode structured output) and 5.4 (no fork) skip themselves", () => {
    const good = results["mycli good"] ?? {};
    expect(Object.keys(good).sort()).toEqual([...CLAUSES].sort());
    const notPassed = Object.entries(good).filter(([, status]) => status !== "passed");
    expect(notPassed.map(([id, status]) => [id, status === "pending" ? "skipped" : status]).sort()).toEqual([
      ["5.4", "skipped"],
      ["7.1", "skipped"],
    ]);
  });

  for (const [variant, clauses] of Object.entries(BREAKS)) {
    it(`${variant}: the kit fails ${clauses.join(" and ")}`, () => {
      const statuses = results[`mycli ${variant}`] ?? {};
      for (const id of clauses) expect(statuses[id], `${variant} ${id}`).toBe("failed");
    });
  }
});
