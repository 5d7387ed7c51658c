// The "Writing a driver" section of the package README is code that must keep working: its three
// blocks (the agent, the driver, the conformance run), and the one-shot driver of the kit section, are extracted into a temp folder, the two
// TypeScript files are type-checked against the packages' sources, and the conformance suite runs
// against the echo driver and the one-shot driver, exactly as a reader would copy them.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { afterAll, describe, expect, it } from "vitest";

const here = dirname(fileURLToPath(import.meta.url));
const repo = resolve(here, "..", "..", "..");
const readme = readFileSync(join(here, "..", "README.md"), "utf8");

/** The fenced block whose info string names `file` (```ts echo-driver.ts). */
function block(file: string): string {
  const match = new RegExp("```\\w+ " + file.replace(".", "\\.") + "\\n([\\s\\S]*?)\\n```").exec(readme);
  if (!match?.[1]) throw new Error(`README has no block for ${file}`);
  return match[1];
}

const dir = mkdtempSync(join(tmpdir(), "adaptor-readme-driver-"));
for (const file of ["echo-agent.mjs", "echo-driver.ts", "echo-driver.test.ts", "oneshot-driver.ts"])
  writeFileSync(join(dir, file), block(file) + "\n");
writeFileSync(join(dir, "package.json"), JSON.stringify({ type: "module" })); // the reader's project is ESM
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// The one-shot driver against the CLI it describes (the kit's own fixture CLI speaks that protocol),
// through a wrapper that keeps its sessions in the temp folder.
const mycli = join(dir, "mycli");
writeFileSync(
  mycli,
  `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(join(here, "conformance-kit", "mycli.mjs"))} --session-dir ${JSON.stringify(join(dir, "sessions"))} "$@"\n`,
  { mode: 0o755 },
);
writeFileSync(
  join(dir, "oneshot-driver.conformance.ts"),
  `import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { join } from "node:path";
import { describeDriverConformance, type DriverFixture } from "@adaptor/driver/testing";
import { MyCliDriver } from "./oneshot-driver.js";

interface Fixture extends DriverFixture { readonly dir: string }
describeDriverConformance<Fixture>("README one-shot driver", {
  makeDriver: () => {
    const dir = mkdtempSync(join(${JSON.stringify(dir)}, "run-"));
    return { driver: new MyCliDriver({ command: ${JSON.stringify(mycli)} }), dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
  },
  scripted: {
    text: () => ({ request: { prompt: "hello" }, expectText: "echo: hello", expectUsage: { inputTokens: 22, outputTokens: 23 } }),
    toolApproval: (f) => ({ request: { prompt: \`TOOL write \${f.dir}/tool.txt\` }, toolRan: () => existsSync(join(f.dir, "tool.txt")) }),
    slow: () => ({ request: { prompt: "SLOW" } }),
    failing: () => ({ request: { prompt: "FAIL the model said no" }, expectMessage: "the model said no" }),
    crashing: () => ({ request: { prompt: "CRASH" } }),
  },
  makeForeignDriver: () => new MyCliDriver({ scirpt: "x" } as never),
  makeMissingDriver: () => new MyCliDriver({ command: "/nonexistent/mycli" }),
});
`,
);

/** `paths` for every workspace package entry point, to its source (as vitest's aliases do). */
function workspacePaths(): Record<string, string[]> {
  const paths: Record<string, string[]> = {};
  for (const folder of ["errors", "driver"]) {
    const manifest = JSON.parse(readFileSync(join(repo, "packages", folder, "package.json"), "utf8")) as {
      name: string;
      exports: Record<string, { source?: string }>;
    };
    for (const [subpath, target] of Object.entries(manifest.exports)) {
      if (target.source) paths[manifest.name + subpath.slice(1)] = [join(repo, "packages", folder, target.source)];
    }
  }
  return paths;
}

describe("README: Writing a driver", () => {
  it("the driver, its conformance run and the one-shot driver type-check against the kit", () => {
    const base = ts.readConfigFile(join(repo, "tsconfig.base.json"), (path) => ts.sys.readFile(path));
    const { options } = ts.parseJsonConfigFileContent(base.config, ts.sys, repo);
    const program = ts.createProgram([join(dir, "echo-driver.ts"), join(dir, "echo-driver.test.ts"), join(dir, "oneshot-driver.ts")], {
      ...options,
      composite: false,
      declaration: false,
      declarationMap: false,
      sourceMap: false,
      noEmit: true,
      paths: workspacePaths(),
      typeRoots: [join(repo, "node_modules", "@types")],
    });
    const problems = ts
      .getPreEmitDiagnostics(program)
      .map(
        (d) =>
          `${d.file ? `${d.file.fileName}:${d.file.getLineAndCharacterOfPosition(d.start ?? 0).line + 1}: ` : ""}${ts.flattenDiagnosticMessageText(d.messageText, "\n")}`,
      );
    expect(problems).toEqual([]);
  });
});

// Registers the README's conformance suite (its describe blocks) in this file.
await import(join(dir, "echo-driver.test.ts"));
// And the kit against the README's one-shot driver.
await import(join(dir, "oneshot-driver.conformance.ts"));
