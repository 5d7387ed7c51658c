// Loading the SDK loads only what a plain run needs: the MCP SDK (with its protocol schemas and
// HTTP server stack) comes in with the first host-tool server, the tar and zip unpackers with the
// first skill archive, the schema libraries (ajv, ajv-formats, zod, zod-to-json-schema) with the
// first tool or output schema, the OpenTelemetry API with the first run that has a tracer (given, or
// a provider the host registered), the A2A SDK's protocol, client and errors modules (and their JOSE
// library) with the first A2A connection, node:zlib with the first session file a thread stores or restores, codex's exec transport with its first run; nothing under /proc is read at load. A fresh node process imports the packages with a load hook that
// names every ES module it loads, and lists the CommonJS modules required (the schema libraries
// are loaded with require()).
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

/** Written to stderr after the code ran: every CommonJS module in require's cache, as a file URL. */
const LIST_REQUIRED = `;{ const { createRequire } = await import("node:module"); const { pathToFileURL } = await import("node:url"); for (const file of Object.keys(createRequire(process.cwd() + "/").cache)) process.stderr.write("LOADED " + pathToFileURL(file).href + "\\n"); }`;

/** The stderr lines of a fresh process that runs `code` (ES module, in the folder of a package that depends on what it imports). */
async function linesOf(code: string, cwd: string): Promise<string[]> {
  const { stderr } = await run(
    process.execPath,
    ["--conditions=source", "--import", "tsx", "--import", REGISTER, "--input-type=module", "-e", code + LIST_REQUIRED],
    { cwd, timeout: 120_000 },
  );
  return stderr.split("\n");
}

/** Module URLs loaded by a fresh process that runs `code`. */
async function loadedBy(code: string, cwd: string): Promise<string[]> {
  return loaded(await linesOf(code, cwd));
}

const loaded = (lines: string[]) => lines.filter((line) => line.startsWith("LOADED ")).map((line) => line.slice("LOADED ".length));

const heavy = (urls: string[]) => urls.filter((url) => /@modelcontextprotocol|\/node_modules\/(tar|yauzl)\/|node:http$/.test(url));
const zlib = (urls: string[]) => urls.filter((url) => url === "node:zlib");
const otel = (urls: string[]) => urls.filter((url) => url.includes("@opentelemetry"));
/** The A2A SDK's modules (protocol, client, errors) and the JOSE library they import. */
const a2aSdk = (urls: string[]) => urls.filter((url) => /\/@a2a-js\/sdk\/dist\/|\/node_modules\/jose\//.test(url));
const schemaStack = (urls: string[]) => urls.filter((url) => /\/node_modules\/(ajv|ajv-formats|zod|zod-to-json-schema)\//.test(url));

describe("modules loaded with the SDK", () => {
  it("importing adaptor and the claude and codex drivers loads neither the MCP SDK, the archive unpackers, the schema libraries nor codex's exec transport", async () => {
    const urls = await loadedBy(
      `await import("adaptor"); await import("@adaptor/claude"); await import("@adaptor/codex");`,
      resolve(ROOT, "test"),
    );
    expect(urls.some((url) => url.includes("/packages/adaptor/"))).toBe(true);
    expect(heavy(urls)).toEqual([]);
    expect(schemaStack(urls)).toEqual([]);
    expect(otel(urls)).toEqual([]);
    expect(zlib(urls)).toEqual([]);
    expect(urls.filter((url) => url.includes("/packages/codex/src/exec/"))).toEqual([]);
    expect(a2aSdk(urls)).toEqual([]);
  }, 150_000);

  it("importing adaptor and the claude and codex drivers reads nothing under /proc (the open-file limit and this process's start time are read when first needed)", async () => {
    // Node's synchronous file reads wrapped before the import; syncBuiltinESMExports() makes the
    // wrappers what a module's `import { readFileSync } from "node:fs"` binds to.
    const lines = await linesOf(
      `const fs = (await import("node:fs")).default;
       for (const name of ["readFileSync", "openSync", "readdirSync", "statSync", "existsSync", "readlinkSync"]) {
         const original = fs[name];
         fs[name] = function (path, ...rest) { process.stderr.write("READ " + String(path) + "\\n"); return original.call(this, path, ...rest); };
       }
       (await import("node:module")).syncBuiltinESMExports();
       await import("adaptor"); await import("@adaptor/claude"); await import("@adaptor/codex");
       process.stderr.write("READ done\\n");`,
      resolve(ROOT, "test"),
    );
    const reads = lines.filter((line) => line.startsWith("READ ")).map((line) => line.slice("READ ".length));
    expect(reads.at(-1)).toBe("done");
    expect(reads.filter((path) => path.startsWith("/proc/"))).toEqual([]);
  }, 150_000);

  it("a tool with a bad schema is refused at once, loading the schema libraries then", async () => {
    const lines = await linesOf(
      `const { defineTool } = await import("adaptor");
       const tool = defineTool({ name: "t", description: "d", input: { type: "object", properties: { code: { type: "string", format: "zip" } } }, handler: () => "" });
       process.stderr.write("DEFINITION " + String(tool.definitionError?.message) + "\\n");`,
      resolve(ROOT, "test"),
    );
    expect(lines.filter((line) => line.startsWith("DEFINITION "))).toEqual([
      'DEFINITION tool "t": invalid definition: input schema: unknown format "zip" ignored in schema at path "#/properties/code"',
    ]);
    const urls = loaded(lines);
    expect(schemaStack(urls).some((url) => url.includes("/node_modules/ajv/"))).toBe(true);
    expect(schemaStack(urls).some((url) => url.includes("/node_modules/ajv-formats/"))).toBe(true);
  }, 150_000);

  it("starting a host-tool server loads the MCP SDK then", async () => {
    const urls = await loadedBy(
      `const { startHostToolServer } = await import("@adaptor/mcp"); const server = await startHostToolServer(); await server.close();`,
      resolve(ROOT, "packages/adaptor"),
    );
    expect(heavy(urls).some((url) => url.includes("@modelcontextprotocol/sdk"))).toBe(true);
  }, 150_000);
});
