import type { InferSchema, StandardSchemaLike } from "@adaptor/tool";
import type { Result } from "../result/result.js";
import type { RunOptions } from "../options/run-options.js";

/** Anything that runs a prompt to a {@link Result}: an `Agent` or a `Thread`. */
export interface Runner {
  /** Runs a prompt to its verdict, as `Agent.run` and `Thread.run` do. */
  run(prompt: string, options?: RunOptions): Promise<Result>;
}

/**
 * Runs `prompt` with `schema` as the output schema and resolves the validated value, typed by the
 * schema, with its Result (like Go's `RunAs[T]`).
 *
 * @param runner - an `Agent` or a `Thread`.
 * @param schema - a zod schema (3 or 4); `value` is its output type.
 * @param options - run options; `schema` and `schemaJSON` are set by `runAs`.
 * @throws everything `runner.run` throws: `InvalidOutputSchemaError`, `StructuredOutputUnsupportedError`
 *   before launch, a `RunError` `policy_violation` for an invalid value; with `returnInvalid: true`
 *   an invalid value rejects with `result.decode()`'s error instead.
 * @example
 * const { value } = await runAs(agent, "Summarise the diff", z.object({ title: z.string(), risk: z.enum(["low", "high"]) }));
 * value.risk; // "low" | "high"
 */
export async function runAs<S extends StandardSchemaLike>(
  runner: Runner,
  prompt: string,
  schema: S,
  options: Omit<RunOptions, "schema" | "schemaJSON"> = {},
): Promise<{ readonly value: InferSchema<S>; readonly result: Result }> {
  const result = await runner.run(prompt, { ...options, schema });
  return { value: result.decode<InferSchema<S>>(), result };
}
