// Loading the SDK loads only what a plain run needs: the MCP SDK (with its protocol schemas and
// HTTP server stack) comes in with the first host-tool server, the tar and zip unpackers with the
// first skill archive. A fresh node process imports the packages with a load hook that names every
// module it loads.
import { execFile } from "node:child_process";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const run = promisify(execFile);
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");

/** A module hook (run in the loader thread) that writes each loaded URL to stderr. */
const HOOK = `data:text/javascript,${encodeURIComponent(
  `import { writeSync } from "node:fs"; export async function load(url, context, next) { writeSync(2, "LOADED " + url + "\\n"); return next(url, context); }`,
)}`;
const REGISTER = `data:text/javascript,${encodeURIComponent(`import { register } from "node:module"; register(${JSON.stringify(HOOK)});`)}`;

/** Module URLs loaded by a fresh process that runs `code` (ES module, in the folder of a package that depends on what it imports). */
async function loadedBy(code: string, cwd: string): Promise<string[]> {
  const { stderr } = await run(
    process.execPath,
    ["--conditions=source", "--import", "tsx", "--import", REGISTER, "--input-type=module", "-e", code],
    { cwd, timeout: 120_000 },
  );
  return stderr
    .split("\n")
    .filter((line) => line.startsWith("LOADED "))
    .map((line) => line.slice("LOADED ".length));
}

const heavy = (urls: string[]) => urls.filter((url) => /@modelcontextprotocol|\/node_modules\/(tar|yauzl)\/|node:http$/.test(url));

describe("modules loaded with the SDK", () => {
  it("importing adaptor and the claude and codex drivers loads neither the MCP SDK nor the archive unpackers", async () => {
    const urls = await loadedBy(
      `await import("adaptor"); await import("@adaptor/claude"); await import("@adaptor/codex");`,
      resolve(ROOT, "test"),
    );
    expect(urls.some((url) => url.includes("/packages/adaptor/"))).toBe(true);
    expect(heavy(urls)).toEqual([]);
  }, 150_000);

  it("starting a host-tool server loads the MCP SDK then", async () => {
    const urls = await loadedBy(
      `const { startHostToolServer } = await import("@adaptor/mcp"); const server = await startHostToolServer(); await server.close();`,
      resolve(ROOT, "packages/adaptor"),
    );
    expect(heavy(urls).some((url) => url.includes("@modelcontextprotocol/sdk"))).toBe(true);
  }, 150_000);
});
