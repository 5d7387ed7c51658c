// The packages as a user gets them: `scripts/pack.mjs` builds and packs every package, the test
// checks each tarball's manifest and contents, installs all of them with plain `npm` into a scratch
// project under os.tmpdir() (outside the workspace), runs a Claude run there with plain `node`, and
// type-checks a user's program against the installed types.
//
// Cost: npm downloads the third-party dependencies once (then `--prefer-offline` takes them from
// npm's cache); `--omit=optional --ignore-scripts` leaves out claude-code's and codex's large
// native platform packages, so the program runs the workspace's pinned claude binary through the
// driver's `command` option (ADAPTOR_CLAUDE_COMMAND).
import { execFile } from "node:child_process";
import { builtinModules } from "node:module";
import { copyFile, mkdir, mkdtemp, readFile, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { promisify } from "node:util";
// The workspace's pinned claude binary (the same lookup the installed driver would do with its own copy).
import { defaultClaudeCommand } from "../../packages/claude/src/command.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const run = promisify(execFile);
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const FIXTURES = join(ROOT, "test", "packaging", "fixtures");
const TSC = join(ROOT, "node_modules", "typescript", "bin", "tsc");

interface Manifest {
  name: string;
  version: string;
  license?: string;
  sideEffects?: boolean;
  type?: string;
  exports?: Record<string, Record<string, string>>;
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
}

interface Packed {
  tarball: string;
  manifest: Manifest;
  /** Paths inside the tarball, without the leading `package/`. */
  files: string[];
  /** Where the tarball was unpacked (its `package/` folder). */
  dir: string;
}

/** The environment for npm and node children: no pnpm or npm settings inherited from a `pnpm test` run. */
function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (!/^(npm_|pnpm_|PNPM_|NODE_OPTIONS$|VITEST|NODE_ENV$)/i.test(key)) env[key] = value;
  }
  return { ...env, ...extra };
}

/** Bare module specifiers imported by a built JS or .d.ts file. */
function bareImports(source: string): string[] {
  const specifiers = new Set<string>();
  // Minified modules write `from"x"` and `import"x"` with no space and several statements a line.
  const patterns = [/\bfrom\s*["']([^"'\s]+)["']/g, /\bimport\s*\(\s*["']([^"']+)["']\s*\)/g, /\bimport\s*["']([^"'\s]+)["']/g];
  for (const pattern of patterns) {
    for (const match of source.matchAll(pattern)) {
      const specifier = match[1]!;
      if (!specifier.startsWith(".") && !specifier.startsWith("node:")) specifiers.add(specifier);
    }
  }
  return [...specifiers];
}

function packageNameOf(specifier: string): string {
  const parts = specifier.split("/");
  return specifier.startsWith("@") ? `${parts[0]}/${parts[1]}` : parts[0]!;
}

const workspacePackages: string[] = [];
const packed = new Map<string, Packed>();
let scratch = "";
let project = "";

beforeAll(async () => {
  for (const folder of await readdir(join(ROOT, "packages"))) {
    const manifest = JSON.parse(await readFile(join(ROOT, "packages", folder, "package.json"), "utf8")) as Manifest;
    workspacePackages.push(manifest.name);
  }
  scratch = await mkdtemp(join(tmpdir(), "adaptor-pack-"));
  const tarballDir = join(scratch, "tarballs");
  const { stdout } = await run(process.execPath, [join(ROOT, "scripts", "pack.mjs"), tarballDir], {
    cwd: ROOT,
    env: cleanEnv(),
    maxBuffer: 16 * 1024 * 1024,
  });
  for (const tarball of stdout
    .trim()
    .split("\n")
    .filter((line) => line.endsWith(".tgz"))) {
    const dir = join(scratch, "unpacked", tarball.slice(tarballDir.length + 1, -".tgz".length));
    await mkdir(dir, { recursive: true });
    await run("tar", ["-xzf", tarball, "-C", dir]);
    const listing = await run("tar", ["-tzf", tarball], { maxBuffer: 16 * 1024 * 1024 });
    const files = listing.stdout
      .trim()
      .split("\n")
      .map((path) => path.replace(/^package\//, ""));
    const manifest = JSON.parse(await readFile(join(dir, "package", "package.json"), "utf8")) as Manifest;
    packed.set(manifest.name, { tarball, manifest, files, dir: join(dir, "package") });
  }

  // A scratch project outside the workspace that depends on every tarball, installed with plain npm.
  project = join(scratch, "project");
  await mkdir(project);
  const dependencies = Object.fromEntries([...packed.values()].map((p) => [p.manifest.name, `file:${p.tarball}`]));
  await writeFile(join(project, "package.json"), JSON.stringify({ name: "scratch", private: true, type: "module", dependencies }, null, 2));
  await run("npm", ["install", "--prefer-offline", "--omit=optional", "--ignore-scripts", "--no-audit", "--no-fund", "--loglevel=error"], {
    cwd: project,
    env: cleanEnv(),
    maxBuffer: 16 * 1024 * 1024,
  });
}, 600_000);

afterAll(async () => {
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

describe("pnpm pack tarballs", () => {
  it("packs one tarball per workspace package", () => {
    expect([...packed.keys()].sort()).toEqual([...workspacePackages].sort());
  });

  it("rewrites workspace and catalog versions into plain ones", () => {
    for (const { manifest } of packed.values()) {
      const versions = { ...manifest.dependencies, ...manifest.peerDependencies };
      for (const [name, version] of Object.entries(versions)) {
        expect(version, `${manifest.name} → ${name}`).toMatch(/^\^?~?\d+\.\d+\.\d+/);
        if (name in Object.fromEntries(packed)) expect(version, `${manifest.name} → ${name}`).toBe(packed.get(name)!.manifest.version);
      }
    }
  });

  it("leaves gemini-cli to the user: @adaptor/acp lists it as an optional peer, not as a dependency", () => {
    const acp = packed.get("@adaptor/acp")!.manifest;
    expect(acp.dependencies).not.toHaveProperty("@google/gemini-cli");
    expect(acp.peerDependencies?.["@google/gemini-cli"]).toBe("0.61.0");
    expect(acp.peerDependenciesMeta?.["@google/gemini-cli"]?.optional).toBe(true);
  });

  it("declares the Apache-2.0 licence, ships the LICENSE file, is ESM and side-effect free", () => {
    for (const { manifest, files } of packed.values()) {
      expect(manifest.license, manifest.name).toBe("Apache-2.0");
      expect(files, manifest.name).toContain("LICENSE");
      expect(files, manifest.name).toContain("README.md");
      expect(manifest.type, manifest.name).toBe("module");
      expect(manifest.sideEffects, manifest.name).toBe(false);
    }
  });

  it("lists types first in every export, and every file an export names is in the tarball", () => {
    for (const { manifest, files } of packed.values()) {
      expect(Object.keys(manifest.exports ?? {}), manifest.name).toContain(".");
      for (const [subpath, conditions] of Object.entries(manifest.exports ?? {})) {
        expect(Object.keys(conditions)[0], `${manifest.name} ${subpath}`).toBe("types");
        for (const target of Object.values(conditions))
          expect(files, `${manifest.name} ${subpath} → ${target}`).toContain(target.replace(/^\.\//, ""));
      }
    }
  });

  it("ships no test files and no build output without a source file", () => {
    for (const { manifest, files } of packed.values()) {
      expect(
        files.filter((file) => /\.test(-d)?\.|(^|\/)test\//.test(file)),
        manifest.name,
      ).toEqual([]);
      const sources = new Set(files.filter((file) => file.startsWith("src/") && file.endsWith(".ts")));
      const orphans = files
        .filter((file) => file.startsWith("dist/") && /\.d\.ts$/.test(file))
        .filter((file) => !sources.has(file.replace(/^dist\//, "src/").replace(/\.d\.ts$/, ".ts")));
      expect(orphans, manifest.name).toEqual([]);
    }
  });

  it("ships the JavaScript bundled: one module per public export and the chunks they share, each with its source map", () => {
    for (const { manifest, files } of packed.values()) {
      const entries = new Set(Object.values(manifest.exports ?? {}).map((conditions) => conditions.import!.replace(/^\.\//, "")));
      const js = files.filter((file) => /\.js$/.test(file) && file.startsWith("dist/"));
      expect(
        js.filter((file) => !entries.has(file) && !/^dist\/js\/chunk-[A-Z0-9]+\.js$/.test(file)),
        manifest.name,
      ).toEqual([]);
      expect(
        [...entries].filter((file) => !js.includes(file)),
        manifest.name,
      ).toEqual([]);
      expect(
        js.filter((file) => !files.includes(`${file}.map`)),
        manifest.name,
      ).toEqual([]);
    }
  });

  it("ships minified the module each package loads at a cold start (its shared module, or its only one), with a source map into the shipped src/", async () => {
    let checked = 0;
    for (const { manifest, files, dir } of packed.values()) {
      if (!files.includes("dist/js/index.js")) continue;
      // The main entry is the shared module itself, or one line re-exporting from it.
      const index = await readFile(join(dir, "dist/js/index.js"), "utf8");
      const file = /^export \{[^}]*\} from "\.\/([^"]+)";\n/.exec(index)?.[1] ?? "index.js";
      const text = await readFile(join(dir, "dist/js", file), "utf8");
      // Left as written, esbuild's output has a line per statement (30–40 characters a line);
      // minified, lines break only inside template literals (SQL text, say).
      expect(text.split("\n").length, `${manifest.name} ${file}`).toBeLessThan(text.length / 100);
      const map = JSON.parse(await readFile(join(dir, "dist/js", `${file}.map`), "utf8")) as { sources: string[]; mappings: string };
      expect(map.mappings.length, `${manifest.name} ${file}.map`).toBeGreaterThan(0);
      const shipped = map.sources.filter((source) => source.startsWith("../../src/"));
      expect(shipped.length, `${manifest.name} ${file}.map`).toBeGreaterThan(0);
      expect(
        shipped.filter((source) => !files.includes(source.slice("../../".length))),
        `${manifest.name} ${file}.map`,
      ).toEqual([]);
      checked += 1;
    }
    expect(checked).toBeGreaterThan(15);
  });

  it("declares as a dependency every package its built JS and .d.ts files import", async () => {
    const builtins = new Set(builtinModules);
    for (const { manifest, files, dir } of packed.values()) {
      const declared = new Set([
        manifest.name,
        ...Object.keys(manifest.dependencies ?? {}),
        ...Object.keys(manifest.peerDependencies ?? {}),
      ]);
      const missing = new Set<string>();
      for (const file of files.filter((path) => path.startsWith("dist/") && /\.(js|d\.ts)$/.test(path))) {
        for (const specifier of bareImports(await readFile(join(dir, file), "utf8"))) {
          const name = packageNameOf(specifier);
          if (!declared.has(name) && !builtins.has(name)) missing.add(`${file} imports ${specifier}`);
        }
      }
      expect([...missing], manifest.name).toEqual([]);
    }
  });
});

/** Runs `code` with plain node in the scratch project; its stdout and the URL of every ES module it loaded, in order. */
async function loadedModules(code: string): Promise<{ stdout: string; loaded: string[] }> {
  // A module hook (run in the loader thread) that writes each loaded URL to stderr.
  const hook = `data:text/javascript,${encodeURIComponent(
    `import { writeSync } from "node:fs"; export async function load(url, context, next) { writeSync(2, "LOADED " + url + "\\n"); return next(url, context); }`,
  )}`;
  const register = `data:text/javascript,${encodeURIComponent(`import { register } from "node:module"; register(${JSON.stringify(hook)});`)}`;
  const { stdout, stderr } = await run(process.execPath, ["--import", register, "--input-type=module", "-e", code], {
    cwd: project,
    env: cleanEnv(),
  });
  const loaded = stderr
    .split("\n")
    .filter((line) => line.startsWith("LOADED "))
    .map((line) => line.slice("LOADED ".length));
  return { stdout, loaded };
}

describe("the tarballs installed with plain npm outside the workspace", () => {
  it("runs a Claude run with plain node in which the host approves one tool call", async () => {
    await copyFile(join(FIXTURES, "claude-approve-one-tool.mjs"), join(project, "program.mjs"));
    const { stdout } = await run(process.execPath, ["program.mjs"], {
      cwd: project,
      env: cleanEnv({ ADAPTOR_CLAUDE_COMMAND: defaultClaudeCommand() }),
      timeout: 120_000,
    });
    const outcome = JSON.parse(stdout.trim().split("\n").at(-1)!) as Record<string, unknown>;
    expect(outcome).toEqual({
      text: "The file is written.",
      approvals: ["Write"],
      written: "hello from fake model\n",
      rules: ["directive", "after-write"],
    });
  }, 180_000);

  it("loads the schema libraries from the install on first use: a tool with a bad schema is refused at once", async () => {
    const { stdout } = await run(
      process.execPath,
      [
        "--input-type=module",
        "-e",
        `const { defineTool } = await import("adaptor");
         const tool = (input) => defineTool({ name: "lookup", description: "Find an order", input, handler: () => "" });
         console.log(JSON.stringify([
           tool({ type: "object", properties: { id: { type: "string" } } }).definitionError?.message ?? null,
           tool({ type: "object", properties: { code: { type: "string", format: "zip" } } }).definitionError?.message ?? null,
         ]));`,
      ],
      { cwd: project, env: cleanEnv() },
    );
    expect(JSON.parse(stdout) as unknown).toEqual([
      null,
      'tool "lookup": invalid definition: input schema: unknown format "zip" ignored in schema at path "#/properties/code"',
    ]);
  });

  it("keeps every class and sentinel two packages share one object, exactly as the sources do", async () => {
    // Every public entry of every package, as a user imports it, and the same entries from source.
    const entries: [label: string, installed: string, source: string][] = [];
    for (const folder of await readdir(join(ROOT, "packages"))) {
      const manifest = JSON.parse(await readFile(join(ROOT, "packages", folder, "package.json"), "utf8")) as Manifest;
      for (const [subpath, conditions] of Object.entries(manifest.exports ?? {})) {
        const label = manifest.name + subpath.slice(1);
        entries.push([label, label, pathToFileURL(join(ROOT, "packages", folder, conditions.source!)).href]);
      }
    }
    const listing = async (args: string[], cwd: string, imports: [label: string, specifier: string][]) => {
      const { stdout } = await run(process.execPath, args, {
        cwd,
        env: cleanEnv({ SHARED_EXPORTS_ENTRIES: JSON.stringify(imports) }),
        maxBuffer: 16 * 1024 * 1024,
        timeout: 120_000,
      });
      return JSON.parse(stdout.trim().split("\n").at(-1)!) as { skipped: string[]; pairs: string[]; names: Record<string, string[]> };
    };
    await copyFile(join(FIXTURES, "shared-exports.mjs"), join(project, "shared-exports.mjs"));
    const installed = await listing(
      ["shared-exports.mjs"],
      project,
      entries.map(([label, specifier]) => [label, specifier]),
    );
    // The testing entries import vitest, which the scratch project does not install.
    const testing = entries.filter(([label]) => label.endsWith("/testing")).map(([label]) => label);
    expect(installed.skipped).toEqual(testing.map((label) => `${label} needs vitest`));
    const fromSource = await listing(
      ["--conditions=source", "--import", "tsx", join(FIXTURES, "shared-exports.mjs")],
      join(ROOT, "test"),
      entries.filter(([label]) => !testing.includes(label)).map(([label, , source]) => [label, source]),
    );
    // A public entry exports exactly its source's names. An `/internal` entry (not a public API)
    // exports its source's names and, built, also the package's other runtime entries' and what
    // the package's separately built modules import from it (scripts/build.mjs): the pairs are
    // compared over the source's names.
    for (const [label, names] of Object.entries(fromSource.names)) {
      if (label.endsWith("/internal")) expect(installed.names[label], label).toEqual(expect.arrayContaining(names));
      else expect(installed.names[label], label).toEqual(names);
    }
    const inSource = (label: string, name: string) => fromSource.names[label]?.includes(name) === true;
    const comparable = installed.pairs.filter((pair) => {
      const [labelA, name, labelB] = pair.split(" ") as [string, string, string];
      return inSource(labelA, name) && inSource(labelB, name);
    });
    expect(comparable.filter((pair) => pair.endsWith(" same")).length).toBeGreaterThan(50);
    expect(comparable).toEqual(fromSource.pairs);
  }, 180_000);

  it("copies uuid, p-queue (with eventemitter3 and p-timeout), fastest-levenshtein and shell-quote into the bundles: importing adaptor and the claude and codex drivers loads no module of theirs, and a misspelt option is still refused with its closest match", async () => {
    const { stdout, loaded } = await loadedModules(
      `const { Agent } = await import("adaptor");
       const { claude } = await import("@adaptor/claude");
       await import("@adaptor/codex");
       const agent = new Agent(claude({ modle: "claude-sonnet-4-5", command: process.execPath }));
       let typo = null;
       try { await agent.run("hello"); } catch (error) { typo = error.message; }
       await agent.close();
       console.log(JSON.stringify(typo));`,
    );
    expect(loaded.filter((url) => url.includes("/node_modules/adaptor/dist/js/"))).not.toEqual([]);
    expect(
      loaded.filter((url) => /\/node_modules\/(uuid|p-queue|eventemitter3|p-timeout|fastest-levenshtein|shell-quote)\//.test(url)),
    ).toEqual([]);
    expect(JSON.parse(stdout) as unknown).toBe('claude: invalid driver config: modle is not a known option; did you mean "model"?');
  });

  it("loads one module of each package adaptor and the claude and codex drivers import, and the entry the program names besides (adaptor's and codex's re-export from theirs)", async () => {
    const { loaded } = await loadedModules(`await import("adaptor"); await import("@adaptor/claude"); await import("@adaptor/codex");`);
    const modules = loaded
      .filter((url) => url.startsWith("file:"))
      .map((url) => fileURLToPath(url).slice(join(project, "node_modules").length + 1))
      .map((path) => path.replace(/chunk-[A-Z0-9]+\.js$/, "chunk.js"))
      .sort();
    expect(modules).toEqual([
      "@adaptor/a2a-client/dist/js/index.js",
      "@adaptor/claude/dist/js/index.js",
      "@adaptor/codex/dist/js/chunk.js",
      "@adaptor/codex/dist/js/index.js",
      "@adaptor/driver/dist/js/internal.js",
      "@adaptor/errors/dist/js/internal.js",
      "@adaptor/mcp/dist/js/index.js",
      "@adaptor/sessionrecorder/dist/js/internal.js",
      "@adaptor/skill/dist/js/internal.js",
      "@adaptor/threadstore/dist/js/internal.js",
      "@adaptor/tool/dist/js/internal.js",
      "adaptor/dist/js/index.js",
      "adaptor/dist/js/internal.js",
    ]);
  });

  it("keeps the names of every exported class and function as the sources have them (the cold-start modules are minified)", async () => {
    const entries = ["adaptor", "@adaptor/codex", "@adaptor/claude", "@adaptor/driver", "@adaptor/errors"];
    const script = `const out = {};
      for (const [label, specifier] of JSON.parse(process.env.NAMED_ENTRIES)) {
        const m = await import(specifier);
        out[label] = Object.entries(m).filter(([, v]) => typeof v === "function").map(([k, v]) => k + " " + v.name).sort();
      }
      console.log(JSON.stringify(out));`;
    const names = async (args: string[], cwd: string, imports: [string, string][]) => {
      const { stdout } = await run(process.execPath, [...args, "--input-type=module", "-e", script], {
        cwd,
        env: cleanEnv({ NAMED_ENTRIES: JSON.stringify(imports) }),
        maxBuffer: 16 * 1024 * 1024,
        timeout: 120_000,
      });
      return JSON.parse(stdout.trim().split("\n").at(-1)!) as Record<string, string[]>;
    };
    const installed = await names(
      [],
      project,
      entries.map((label) => [label, label]),
    );
    const sources = await Promise.all(
      entries.map(async (label): Promise<[string, string]> => {
        const folder = label === "adaptor" ? "adaptor" : label.slice("@adaptor/".length);
        const manifest = JSON.parse(await readFile(join(ROOT, "packages", folder, "package.json"), "utf8")) as Manifest;
        return [label, pathToFileURL(join(ROOT, "packages", folder, manifest.exports!["."]!.source!)).href];
      }),
    );
    const fromSource = await names(["--conditions=source", "--import", "tsx"], join(ROOT, "test"), sources);
    expect(installed["adaptor"]).toContain("AdaptorError AdaptorError");
    expect(installed).toEqual(fromSource);
  }, 180_000);

  it("resolves the installed packages from the scratch project, not from the workspace", async () => {
    const { stdout } = await run(
      process.execPath,
      [
        "--input-type=module",
        "-e",
        'console.log(JSON.stringify([import.meta.resolve("adaptor"), import.meta.resolve("@adaptor/testkit/fake-cli")]))',
      ],
      { cwd: project, env: cleanEnv() },
    );
    for (const url of JSON.parse(stdout) as string[]) {
      expect(fileURLToPath(url).startsWith(join(project, "node_modules"))).toBe(true);
      expect(url).toMatch(/\/dist\/js\/[^/]+\.js$/);
    }
  });

  it("type-checks a user's program with tsc --noEmit, and refuses a misspelt option (typo: `modle`)", async () => {
    await writeFile(
      join(project, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          target: "ES2022",
          lib: ["ES2023", "ESNext.Disposable"],
          module: "NodeNext",
          moduleResolution: "NodeNext",
          strict: true,
          noEmit: true,
          skipLibCheck: true,
          types: ["node"],
        },
        include: ["src"],
      }),
    );
    await mkdir(join(project, "src"), { recursive: true });
    const program = await readFile(join(FIXTURES, "user-program.ts"), "utf8");
    await writeFile(join(project, "src", "agent.ts"), program);
    const clean = await run(process.execPath, [TSC, "-p", "."], { cwd: project, env: cleanEnv() }).then(
      () => ({ code: 0, output: "" }),
      (error: { code: number; stdout: string }) => ({ code: error.code, output: error.stdout }),
    );
    expect(clean).toEqual({ code: 0, output: "" });

    expect(program).toContain('model: "claude-sonnet-4-5"');
    await writeFile(join(project, "src", "agent.ts"), program.replace('model: "claude-sonnet-4-5"', 'modle: "claude-sonnet-4-5"'));
    const typo = await run(process.execPath, [TSC, "-p", "."], { cwd: project, env: cleanEnv() }).then(
      () => ({ code: 0, output: "" }),
      (error: { code: number; stdout: string }) => ({ code: error.code, output: error.stdout }),
    );
    expect(typo.code).not.toBe(0);
    expect(typo.output).toContain("src/agent.ts");
    expect(typo.output).toMatch(/'modle' does not exist in type 'ClaudeConfig'/);
  }, 180_000);
});
