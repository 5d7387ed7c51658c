// The import-boundary rule of eslint.config.mjs: a package's source imports only lower layers
// (docs/design.md "Packages and layers"). Linted as text under a file path, so no file is written.
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { ESLint } from "eslint";
import { describe, expect, it } from "vitest";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const eslint = new ESLint({ cwd: ROOT });

async function boundaryErrors(file: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: join(ROOT, file) });
  return (result?.messages ?? []).filter((m) => m.ruleId === "no-restricted-imports").map((m) => m.message);
}

describe("import boundaries between layers", () => {
  it("refuses a layer-1 package importing the root SDK (layer violation: driver → adaptor)", async () => {
    const errors = await boundaryErrors(
      "packages/driver/src/spi/boundary-probe.ts",
      'import { Agent } from "adaptor";\nexport const probe = Agent;\n',
    );
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain("layer violation: @adaptor/driver (layer 1)");
    expect(errors[0]).toContain("adaptor is layer 3");
  });

  it("refuses a same-layer import and a subpath of a higher layer (claude → codex, tool → @adaptor/driver/process)", async () => {
    expect(await boundaryErrors("packages/claude/src/boundary-probe.ts", 'export { codex } from "@adaptor/codex";\n')).toHaveLength(1);
    expect(await boundaryErrors("packages/tool/src/boundary-probe.ts", 'import "@adaptor/driver/process";\n')).toHaveLength(1);
  });

  it("puts @adaptor/bridge above the root SDK: the bridge may import adaptor, adaptor may not import the bridge", async () => {
    expect(await boundaryErrors("packages/bridge/src/boundary-probe.ts", 'export { Agent } from "adaptor";\n')).toEqual([]);
    const errors = await boundaryErrors("packages/adaptor/src/boundary-probe.ts", 'export { Bridge } from "@adaptor/bridge";\n');
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain("@adaptor/bridge is layer 4");
  });

  it("refuses a package's test importing a workspace package its package.json does not list (claude test → adaptor)", async () => {
    const errors = await boundaryErrors("packages/claude/test/boundary-probe.test.ts", 'export { Agent } from "adaptor";\n');
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain("undeclared test dependency: @adaptor/claude's tests import adaptor");
  });

  it("keeps the A2A split: the client package may not import the root SDK, the server package may", async () => {
    const errors = await boundaryErrors(
      "packages/a2a-client/src/boundary-probe.ts",
      'import { Agent } from "adaptor";\nexport const probe = Agent;\n',
    );
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain("layer violation: @adaptor/a2a-client (layer 2)");
    expect(await boundaryErrors("packages/adaptor/src/boundary-probe.ts", 'import "@adaptor/a2a";\n')).toHaveLength(1);
    expect(
      await boundaryErrors(
        "packages/a2a/src/boundary-probe.ts",
        'export { Agent } from "adaptor";\nexport { A2AClient } from "@adaptor/a2a-client";\n',
      ),
    ).toEqual([]);
  });

  it("allows imports from lower layers, declared test dependencies, the cross-package suites and examples", async () => {
    expect(
      await boundaryErrors(
        "packages/adaptor/src/boundary-probe.ts",
        'export { DriverError } from "@adaptor/errors";\nexport type { Driver } from "@adaptor/driver";\n',
      ),
    ).toEqual([]);
    expect(await boundaryErrors("packages/claude/src/boundary-probe.ts", 'export { spawnCli } from "@adaptor/driver/process";\n')).toEqual(
      [],
    );
    expect(
      await boundaryErrors("packages/claude/test/boundary-probe.test.ts", 'export { startAnthropicServer } from "@adaptor/testkit";\n'),
    ).toEqual([]);
    expect(
      await boundaryErrors(
        "test/claude/boundary-probe.test.ts",
        'export { Agent } from "adaptor";\nexport { claude } from "@adaptor/claude";\n',
      ),
    ).toEqual([]);
    expect(await boundaryErrors("examples/quickstart/src/boundary-probe.ts", 'export { Agent } from "adaptor";\n')).toEqual([]);
  });
});
