import { AdaptorError } from "@adaptor/errors";
import { ErrInvalidDefinition } from "./errors/sentinels.js";
import { compileJsonSchema, type CompiledSchema } from "./schema/compile.js";
import { SchemaError } from "./schema/schema-error.js";
import {
  isStandardSchema,
  type InferSchema,
  type JsonSchemaObject,
  type SchemaSource,
  type StandardSchemaLike,
} from "./schema/schema-source.js";
import { toJsonSchema } from "./schema/to-json-schema.js";

/** Behaviour hints for the agent (MCP tool annotations); hints only, never enforced. */
export interface ToolAnnotations {
  /** Human title, e.g. `"Look up an order"`. */
  readonly title?: string;
  /** The tool changes nothing (MCP `readOnlyHint`). */
  readonly readOnly?: boolean;
  /** The tool may destroy data (MCP `destructiveHint`). */
  readonly destructive?: boolean;
  /** Calling it twice with the same input has no further effect (MCP `idempotentHint`). */
  readonly idempotent?: boolean;
  /** The tool reaches outside systems (MCP `openWorldHint`). */
  readonly openWorld?: boolean;
}

/** What a handler gets besides its input. */
export interface ToolContext {
  /**
   * The run's signal for this call: aborted when the run that called the tool ends (cancel, timeout,
   * agent close, its verdict) or the call is abandoned (the CLI gave up on it).
   */
  readonly signal: AbortSignal;
  /** UUID v7 of the run whose agent called the tool (`result.runId`, the events' `runId`). */
  readonly runId: string;
  /**
   * The key of the thread when that run is a thread turn (`agent.thread(key)`, `newThread(key)`,
   * the target key of `fork(key)`); absent for a plain run.
   */
  readonly threadKey?: string;
  /** The CLI's id of this call (Claude: the model's `tool_use` id, e.g. `"toolu_1"`), else an SDK id. */
  readonly toolCallId: string;
  /**
   * Adds a `notice` event to the run that called the tool (never dropped), e.g. the progress of
   * work the tool hands on: `notice("a2a.delegation.progress", "working", { taskId })`. `data`
   * should be JSON-serialisable. A no-op after the run ended.
   */
  notice(kind: string, message?: string, data?: Readonly<Record<string, unknown>>): void;
}

/** The value a handler resolves: the output schema's type, `unknown` without one. */
export type ToolOutput<OS> = [OS] extends [never] ? unknown : InferSchema<OS>;

/** Fields of {@link defineTool}. */
export interface ToolDefinition<IS extends SchemaSource, OS extends SchemaSource = never> {
  /** Name the agent calls, `[A-Za-z][A-Za-z0-9_-]*`, at most 48 characters, unique per agent. */
  readonly name: string;
  /** What the tool does, for the model. Non-empty. */
  readonly description: string;
  /** Schema of the input: a zod object schema, or a JSON Schema whose root is `type: "object"`. */
  readonly input: IS;
  /** Schema of the handler's value, checked before delivery. Optional. */
  readonly output?: OS;
  /**
   * Runs the tool with the validated input (for a zod schema, the parsed value). Resolve the result
   * (JSON-serialisable; a string is delivered as is, anything else as JSON text); throw
   * {@link reject} for a failure the model may read; any other throw reaches the model as generic text.
   */
  readonly handler: (input: InferSchema<IS>, context: ToolContext) => ToolOutput<OS> | Promise<ToolOutput<OS>>;
  /** MCP tool annotations (read-only, destructive, idempotent, open-world hints). */
  readonly annotations?: ToolAnnotations;
  /**
   * Whether a call needs the host's approval. Unset (default): the call follows the run's
   * `policy.approvals.permission` as a tool of the agent's own would: `ask` sends it to
   * `onApproval` / the `approval-request` event first, `auto_approve` runs it, `auto_deny` denies
   * it, `inherit` (the default policy) runs it without asking. `false`: the host trusts the tool,
   * and it always runs without asking (the Claude Agent SDK's `allowedTools`). `true`: asked even
   * when the permission mode is `inherit` (`auto_approve` and `auto_deny` still decide it).
   */
  readonly needsApproval?: boolean;
  /**
   * Version of the tool's behaviour, e.g. `"2"`. A thread's fingerprint holds the name and revision
   * of each of its agent's tools: changing a revision, or adding or removing a tool, makes a stored
   * thread `ErrThreadIncompatible` (its conversation assumed the old tools). Default: none.
   */
  readonly revision?: string;
}

/** What the runtime needs of a tool; reachable only through `@adaptor/tool/internal`. */
export interface ToolInternals {
  readonly input?: CompiledSchema;
  readonly inputStandard?: StandardSchemaLike;
  readonly output?: CompiledSchema;
  readonly outputStandard?: StandardSchemaLike;
  readonly handler: (input: unknown, context: ToolContext) => unknown;
}

const INTERNALS = new WeakMap<Tool, ToolInternals>();

const NAME = /^[A-Za-z][A-Za-z0-9_-]{0,47}$/;
const ANNOTATION_KEYS = new Set(["title", "readOnly", "destructive", "idempotent", "openWorld"]);

/**
 * A host-defined tool made by {@link defineTool}. A bad definition does not throw: it is kept, with
 * {@link definitionError} set, and the run that offers it fails before the driver starts.
 */
export class Tool {
  /** Name the agent calls (Claude shows it as `mcp__adaptor__<name>`). */
  readonly name: string;
  /** What the tool does, for the model. */
  readonly description: string;
  /** Behaviour hints, as given. */
  readonly annotations: Readonly<ToolAnnotations>;
  /** Version of the tool's behaviour, when given. */
  readonly revision: string | undefined;
  /** Whether a call needs approval: `undefined` follows the run's permission mode (see {@link ToolDefinition.needsApproval}). */
  readonly needsApproval: boolean | undefined;
  /** JSON Schema (draft 2020-12) of the input, as offered to the agent; `undefined` if it could not be made. */
  readonly inputSchema: JsonSchemaObject | undefined;
  /** JSON Schema of the output, when one was given and could be made. */
  readonly outputSchema: JsonSchemaObject | undefined;
  /** Why the definition is unusable: an `AdaptorError` matching `ErrInvalidDefinition`, with the reason in its message. */
  readonly definitionError: AdaptorError | undefined;

  /** @internal Tools are made by {@link defineTool}. */
  constructor(init: {
    name: string;
    description: string;
    annotations: ToolAnnotations;
    revision: string | undefined;
    needsApproval?: boolean | undefined;
    internals: ToolInternals;
    definitionError: AdaptorError | undefined;
  }) {
    this.name = init.name;
    this.description = init.description;
    this.annotations = Object.freeze({ ...init.annotations });
    this.revision = init.revision;
    this.needsApproval = init.needsApproval;
    this.inputSchema = init.internals.input?.json;
    this.outputSchema = init.internals.output?.json;
    this.definitionError = init.definitionError;
    INTERNALS.set(this, init.internals);
    Object.freeze(this);
  }
}

/** The runtime parts of `tool`; `undefined` for an object that is not a {@link Tool} of this copy. */
export function toolInternals(tool: Tool): ToolInternals | undefined {
  return INTERNALS.get(tool);
}

/**
 * Defines a host tool the agent can call. Never throws: a bad name, description,
 * handler, annotations, revision, needsApproval or schema is kept as {@link Tool.definitionError}
 * (`ErrInvalidDefinition`, with the reason) and surfaces before the driver runs. Schemas are
 * converted and compiled here, once (zod through zod-to-json-schema or zod 4's own converter; ajv
 * draft 2020-12 with formats).
 *
 * @example
 * const lookup = defineTool({
 *   name: "lookup_order",
 *   description: "Find an order by id",
 *   input: z.object({ id: z.string() }),
 *   output: z.object({ id: z.string(), total: z.number() }),
 *   annotations: { readOnly: true },
 *   handler: async ({ id }) => {
 *     const order = orders.get(id);
 *     if (!order) throw reject("not_found", "no such order");
 *     return order;
 *   },
 * });
 */
export function defineTool<IS extends SchemaSource, OS extends SchemaSource = never>(definition: ToolDefinition<IS, OS>): Tool {
  const problems: string[] = [];
  let cause: unknown;
  const def = (typeof definition === "object" && definition !== null ? definition : {}) as Partial<ToolDefinition<IS, OS>>;
  const name = typeof def.name === "string" ? def.name : "";
  if (!NAME.test(name)) problems.push(`name must match ${NAME.source}, got ${JSON.stringify(def.name)}`);
  const description = typeof def.description === "string" ? def.description : "";
  if (description.trim() === "") problems.push("description must be a non-empty string");
  const handler = def.handler;
  if (typeof handler !== "function") problems.push("handler must be a function");
  const annotations = checkAnnotations(def.annotations, problems);
  if (def.revision !== undefined && (typeof def.revision !== "string" || def.revision.trim() === "")) {
    problems.push("revision must be a non-empty string when given");
  }
  if (def.needsApproval !== undefined && typeof def.needsApproval !== "boolean")
    problems.push("needsApproval must be a boolean when given");
  const compile = (label: string, source: SchemaSource | undefined, requireObject: boolean): CompiledSchema | undefined => {
    if (source === undefined) {
      if (requireObject) problems.push(`${label} schema is required`);
      return undefined;
    }
    try {
      const json = toJsonSchema(source);
      if (requireObject && json.type !== "object") throw new SchemaError(`root must be type "object", got ${JSON.stringify(json.type)}`);
      return compileJsonSchema(json);
    } catch (error) {
      cause ??= error;
      problems.push(`${label} schema: ${error instanceof SchemaError ? error.reason : String(error)}`);
      return undefined;
    }
  };
  const input = compile("input", def.input, true);
  const output = compile("output", def.output, false);
  const internals: ToolInternals = {
    ...(input ? { input } : {}),
    ...(isStandardSchema(def.input) ? { inputStandard: def.input } : {}),
    ...(output ? { output } : {}),
    ...(isStandardSchema(def.output) ? { outputStandard: def.output } : {}),
    handler: typeof handler === "function" ? (handler as ToolInternals["handler"]) : () => undefined,
  };
  const definitionError = problems.length
    ? new AdaptorError(`tool ${JSON.stringify(name || def.name)}: invalid definition: ${problems.join("; ")}`, {
        sentinel: ErrInvalidDefinition,
        ...(cause !== undefined ? { cause } : {}),
      })
    : undefined;
  return new Tool({
    name,
    description,
    annotations,
    revision: typeof def.revision === "string" ? def.revision : undefined,
    needsApproval: typeof def.needsApproval === "boolean" ? def.needsApproval : undefined,
    internals,
    definitionError,
  });
}

function checkAnnotations(value: unknown, problems: string[]): ToolAnnotations {
  if (value === undefined) return {};
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    problems.push("annotations must be an object");
    return {};
  }
  const out: Record<string, unknown> = {};
  for (const [key, entry] of Object.entries(value)) {
    if (!ANNOTATION_KEYS.has(key)) {
      problems.push(`unknown annotation ${JSON.stringify(key)}`);
    } else if (key === "title" ? typeof entry !== "string" : typeof entry !== "boolean") {
      problems.push(`annotation ${key} must be a ${key === "title" ? "string" : "boolean"}`);
    } else {
      out[key] = entry;
    }
  }
  return out as ToolAnnotations;
}
