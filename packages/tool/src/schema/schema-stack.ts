// The schema libraries (ajv with its formats, zod-to-json-schema, zod 4's converter) are loaded on
// first use, not with the package: a run without host tools or an output schema never needs them,
// and they are most of what importing the SDK would otherwise compile. They are CommonJS (ajv is
// only that), so a synchronous require() loads them and `defineTool()` and output schemas still
// report a bad schema at once. A bundle of the SDK must leave them external, resolvable from it.
import { createRequire } from "node:module";
import type { Ajv2020 } from "ajv/dist/2020.js";
import type { FormatsPlugin } from "ajv-formats";
import type { ignoreOverride, zodToJsonSchema } from "zod-to-json-schema";
import type { $ZodRegistry, $ZodType, globalRegistry, toJSONSchema } from "zod/v4/core";

const requireCjs = createRequire(import.meta.url);

/** ajv's draft 2020-12 class and the ajv-formats plugin. */
export interface AjvStack {
  readonly Ajv2020: typeof Ajv2020;
  readonly addFormats: FormatsPlugin;
}

/** The zod converters: zod-to-json-schema (zod 3) and zod 4's own `toJSONSchema`. */
export interface ZodStack {
  readonly zodToJsonSchema: typeof zodToJsonSchema;
  readonly ignoreOverride: typeof ignoreOverride;
  readonly toJSONSchema: typeof toJSONSchema;
  readonly globalRegistry: typeof globalRegistry;
}

let ajv: AjvStack | undefined;
let zod: ZodStack | undefined;

/** ajv and ajv-formats, loaded on the first call. */
export function ajvStack(): AjvStack {
  if (!ajv) {
    const core = requireCjs("ajv/dist/2020.js") as { Ajv2020: typeof Ajv2020 };
    // ajv-formats: `module.exports` is the plugin and `.default` names it too.
    const formats = requireCjs("ajv-formats") as { default: FormatsPlugin };
    ajv = { Ajv2020: core.Ajv2020, addFormats: formats.default };
  }
  return ajv;
}

/** zod-to-json-schema and zod 4's converter, loaded on the first call. */
export function zodStack(): ZodStack {
  if (!zod) {
    const v3 = requireCjs("zod-to-json-schema") as { zodToJsonSchema: typeof zodToJsonSchema; ignoreOverride: typeof ignoreOverride };
    const v4 = requireCjs("zod/v4/core") as { toJSONSchema: typeof toJSONSchema; globalRegistry: typeof globalRegistry };
    zod = {
      zodToJsonSchema: v3.zodToJsonSchema,
      ignoreOverride: v3.ignoreOverride,
      toJSONSchema: v4.toJSONSchema,
      globalRegistry: v4.globalRegistry,
    };
  }
  return zod;
}

/**
 * The metadata (description, title, examples...) of a zod 4 schema for the converter. A schema
 * made with another copy of zod (its ES module build, say, while this one is CommonJS, or another
 * version) keeps its metadata in that copy's registry, which its own `meta()` reads; a schema
 * without `meta()` (zod/mini) is looked up in this copy's registry.
 */
export function schemaMetadata(registry: typeof globalRegistry): $ZodRegistry<Record<string, unknown>> {
  return {
    get(schema: $ZodType) {
      const own = (schema as { meta?: unknown }).meta;
      if (typeof own === "function") {
        const meta = (own as () => unknown).call(schema);
        if (meta !== undefined) return meta;
      }
      return registry.get(schema);
    },
  } as unknown as $ZodRegistry<Record<string, unknown>>;
}
