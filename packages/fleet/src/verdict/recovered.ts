import type { JsonValue } from "@adaptor/sessionrecorder";
import type { StoredResult } from "./verdict.js";

/** A transcript item as stored (the driver's `TranscriptItem`, JSON). */
type StoredTranscriptItem = Record<string, JsonValue>;

/**
 * The stored Result of a turn whose attempt committed it to the thread store and then lost its
 * worker before writing the verdict: what the attempt's logged events (`events`, in order) and the
 * committed thread record (`sessionId`: its checkpoint's resume id) keep of it. The text is the
 * attempt's `text-delta`s; the model is what its `run-started` asked for; the transcript is built
 * from its text, thinking, tool calls and tool results. Usage, cost, duration and the raw streams
 * went with the worker (the run's `run-finished` is written only with its verdict).
 */
export function recoveredResult(runId: string, events: readonly JsonValue[], sessionId: string | undefined): StoredResult {
  let text = "";
  let model: string | undefined;
  const transcript: StoredTranscriptItem[] = [];
  const append = (kind: "assistant" | "thinking", delta: string): void => {
    const last = transcript.at(-1);
    if (last?.kind === kind) last.text = `${String(last.text)}${delta}`;
    else transcript.push({ kind, text: delta });
  };
  for (const json of events) {
    const event = json as Record<string, JsonValue>;
    if (event.type === "run-started" && typeof event.model === "string") model = event.model;
    else if (event.type === "text-delta" && typeof event.text === "string") {
      text += event.text;
      append("assistant", event.text);
    } else if (event.type === "thinking-delta" && typeof event.text === "string") append("thinking", event.text);
    else if (event.type === "tool-call" && event.phase === "end" && typeof event.id === "string")
      transcript.push({
        kind: "tool-call",
        toolCallId: event.id,
        ...(typeof event.name === "string" ? { toolName: event.name } : {}),
        ...(event.input !== undefined ? { input: event.input } : {}),
      });
    else if (event.type === "tool-result" && typeof event.id === "string")
      transcript.push({
        kind: "tool-result",
        toolCallId: event.id,
        ...(typeof event.name === "string" ? { toolName: event.name } : {}),
        ...(typeof event.output === "string" ? { text: event.output } : {}),
        ...(event.isError === true ? { isError: true } : {}),
        ...(typeof event.exitCode === "number" ? { exitCode: event.exitCode } : {}),
      });
  }
  return {
    runId,
    text,
    ...(model !== undefined ? { model } : {}),
    ...(sessionId !== undefined ? { sessionId } : {}),
    transcript: transcript as unknown as JsonValue,
  };
}
