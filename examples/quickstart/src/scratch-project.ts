import { execFile } from "node:child_process";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);

/** Writes a tiny Node project whose one test fails: `add` subtracts. */
export async function makeScratchProject(dir: string): Promise<void> {
  await mkdir(join(dir, "test"), { recursive: true });
  await writeFile(
    join(dir, "package.json"),
    JSON.stringify({ name: "scratch", private: true, type: "module", scripts: { test: "node --test" } }, null, 2),
  );
  await writeFile(join(dir, "math.js"), "export function add(a, b) {\n  return a - b;\n}\n");
  await writeFile(
    join(dir, "test", "math.test.js"),
    [
      'import { test } from "node:test";',
      'import assert from "node:assert/strict";',
      'import { add } from "../math.js";',
      "",
      'test("add adds", () => {',
      "  assert.equal(add(2, 3), 5);",
      "});",
      "",
    ].join("\n"),
  );
}

/** Runs the project's tests; true when they pass. */
export async function testsPass(dir: string): Promise<boolean> {
  try {
    await run(process.execPath, ["--test"], { cwd: dir, env: { PATH: process.env.PATH ?? "" } });
    return true;
  } catch {
    return false;
  }
}
