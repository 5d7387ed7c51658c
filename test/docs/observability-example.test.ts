// docs/observability.md's parent-span example must compile as written: type-checked with only the
// imports and values the page names before it (`Agent`, `claude`, a `cwd`).
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

/** The first `ts` code block of `markdown` that contains `marker`. */
function codeBlock(markdown: string, marker: string): string {
  const blocks = [...markdown.matchAll(/```ts\n([\s\S]*?)```/g)].map((match) => match[1]!);
  const block = blocks.find((text) => text.includes(marker));
  if (block === undefined) throw new Error(`no ts block with ${marker}`);
  return block;
}

/** The type errors of `source` compiled as an ES module in test/docs/, as strings. */
function typeErrors(source: string): string[] {
  const file = join(ROOT, "test", "docs", "snippet.ts");
  const options: ts.CompilerOptions = {
    target: ts.ScriptTarget.ES2022,
    lib: ["lib.es2023.d.ts", "lib.esnext.disposable.d.ts"],
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    customConditions: ["source"],
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    types: ["node"],
  };
  const host = ts.createCompilerHost(options);
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (name, version, ...rest) =>
    name === file ? ts.createSourceFile(name, source, version) : getSourceFile(name, version, ...rest);
  const fileExists = host.fileExists.bind(host);
  host.fileExists = (name) => name === file || fileExists(name);
  const program = ts.createProgram([file], options, host);
  return ts
    .getPreEmitDiagnostics(program, program.getSourceFile(file))
    .map((diagnostic) => ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n"));
}

describe("docs/observability.md", () => {
  it("the parent-span example type-checks as written (every name it uses is defined)", () => {
    const doc = readFileSync(join(ROOT, "docs", "observability.md"), "utf8");
    const example = codeBlock(doc, "startActiveSpan");
    const prelude = 'import { Agent } from "adaptor";\nimport { claude } from "@adaptor/claude";\ndeclare const cwd: string;\n';
    expect(typeErrors(prelude + example)).toEqual([]);
  });
});
