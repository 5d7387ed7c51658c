import type { RunAgentInput } from "@ag-ui/core";
import { RunAgentInputSchema } from "@ag-ui/core/schemas";
import { HttpError } from "../http/http-error.js";
import { checkWireId } from "./wire-id.js";

/**
 * Checks an AG-UI `RunAgentInput` and takes the prompt from its last message, which must be a
 * user message with text (text parts are joined; other parts are refused). A resume run (one with
 * `resume` entries) continues a suspended turn with its own prompt, so it needs none: its prompt
 * is `""` and its messages are not read.
 * @throws HttpError 400 naming what is wrong; 400 `invalid_id` for a `runId` or `threadId` that is
 *   empty, longer than 256 characters or holds control characters (a `runId` must be printable ASCII).
 */
export function parseAgUiInput(body: unknown): { readonly input: RunAgentInput; readonly prompt: string } {
  const parsed = RunAgentInputSchema.safeParse(body);
  if (!parsed.success) {
    throw new HttpError(
      400,
      "bad_request",
      "not an AG-UI RunAgentInput: " +
        parsed.error.issues
          .slice(0, 3)
          .map((issue) => `${issue.path.join(".") || "body"}: ${issue.message}`)
          .join("; "),
    );
  }
  const input = parsed.data as RunAgentInput;
  checkWireId("runId", input.runId, { visibleAscii: true });
  checkWireId("threadId", input.threadId);
  if (input.resume !== undefined && input.resume.length > 0) return { input, prompt: "" };
  const last = input.messages.at(-1);
  if (!last || last.role !== "user") throw new HttpError(400, "bad_request", "the last message must be a user message with the prompt");
  const content: unknown = last.content;
  let prompt: string;
  if (typeof content === "string") prompt = content;
  else if (Array.isArray(content)) {
    const parts = content as { type?: unknown; text?: unknown }[];
    const other = parts.find((part) => part.type !== "text");
    if (other) throw new HttpError(400, "bad_request", `the prompt may only hold text parts, got a part of type ${String(other.type)}`);
    prompt = parts.map((part) => String(part.text ?? "")).join("\n");
  } else prompt = "";
  if (prompt.trim() === "") throw new HttpError(400, "bad_request", "the prompt is empty");
  return { input, prompt };
}
