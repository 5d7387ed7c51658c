import type { OutputSchema } from "./output-schema.js";

/**
 * The prompt of a prompt-mode run: the caller's prompt, then instructions to answer with exactly
 * one JSON value (no prose, no code fence) that satisfies the schema, which is included as JSON.
 */
export function withOutputInstructions(prompt: string, schema: OutputSchema): string {
  const label = schema.name ? ` named ${JSON.stringify(schema.name)}` : "";
  const about = schema.description ? `\nIt describes: ${schema.description}` : "";
  return (
    `${prompt}\n\n` +
    `---\n` +
    `Output format: your final message must be exactly one JSON value and nothing else ` +
    `(no prose, no Markdown code fence). It must satisfy this JSON Schema (draft 2020-12)${label}:${about}\n` +
    `${JSON.stringify(schema.json)}`
  );
}
