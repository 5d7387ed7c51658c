import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

/** Folder of the fake CLIs and the bare consumers (bench/fixtures). */
export const FIXTURES = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "fixtures");

/** What one consumer process reports about itself on its last stdout line. */
export interface ConsumerReport {
  /** Events (SDK consumer) or lines (bare consumer) read. */
  readonly events: number;
  /** Characters of assistant text received. */
  readonly text: number;
  /** Deltas the SDK dropped under backpressure (SDK consumer only). */
  readonly dropped?: number;
  /** Items in the Result's transcript (SDK consumer only). */
  readonly transcript?: number;
  /** The consumer process's own user + system CPU, µs (the fake CLI is another process). */
  readonly cpuUs: number;
  /** The consumer process's peak resident set, KiB. */
  readonly maxRssKb: number;
  /** SDK consumer: {@link cpuUs} again after reading the Result's transcript (measured apart: it may be made only then). */
  readonly withTranscriptCpuUs?: number;
  /** SDK consumer: {@link maxRssKb} again after reading the Result's transcript. */
  readonly withTranscriptMaxRssKb?: number;
}

/** Runs `node <script> ...args` with `env` added and parses its report. */
export function runConsumer(script: string, args: readonly string[], env: Record<string, string>): Promise<ConsumerReport> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [script, ...args], { env: { ...process.env, ...env }, maxBuffer: 1 << 20 }, (error, stdout, stderr) => {
      if (error) {
        reject(new Error(`${script} ${args.join(" ")} failed: ${stderr.trim() || error.message}`, { cause: error }));
        return;
      }
      const last = stdout.trim().split("\n").pop() ?? "";
      try {
        resolve(JSON.parse(last) as ConsumerReport);
      } catch (cause) {
        reject(new Error(`${script}: no report on stdout: ${last}`, { cause }));
      }
    });
  });
}

/**
 * Bundles a measured program under bench/src (the packages from source) into a plain ES module in
 * a temp folder (what the program imports dynamically in chunks of their own, loaded when needed), so the measured process runs compiled JavaScript as an installed package would,
 * not a TypeScript loader. The folder is under bench/node_modules, so that what the SDK loads with
 * require() on first use (the schema libraries, CommonJS) resolves from the bundle as from an
 * install: bench/package.json lists them (and the OpenTelemetry API, loaded by a run that traces). Returns its path and a cleanup.
 *
 * With `installed`, only the program itself is compiled: every package it imports stays an import,
 * which node resolves from bench/node_modules through each package's `exports` default condition
 * (its built `dist/`, as an install of the packed tarball loads it), not from source.
 *
 * @param entry - path relative to bench/src, e.g. `"pipeline/agent-consumer.ts"`.
 */
export async function bundleProgram(entry: string, options: { installed?: boolean } = {}): Promise<{ script: string; cleanup(): void }> {
  const parent = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "node_modules", ".bundles");
  mkdirSync(parent, { recursive: true });
  const dir = mkdtempSync(join(parent, "adaptor-bench-"));
  const script = join(dir, "program.mjs");
  await build({
    entryPoints: [join(dirname(fileURLToPath(import.meta.url)), "..", entry)],
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    ...(options.installed ? { packages: "external" as const } : { conditions: ["source"] }),
    outdir: dir,
    entryNames: "program",
    outExtension: { ".js": ".mjs" },
    // A dynamic import stays a module of its own, loaded when first needed, as from an install.
    splitting: true,
    logLevel: "error",
    // Bundled CommonJS dependencies call require(); give the ES module one.
    banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
  });
  return { script, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}
