import type { TranscriptItem } from "@adaptor/driver";

/**
 * The assistant text written after the transcript's last user item, in order: what an
 * interrupted or stopped turn wrote so far. One pass over the turn's items, however many the CLI
 * wrote (a long turn ended by an abort can hold hundreds of thousands).
 */
export function partialText(transcript: readonly TranscriptItem[]): string {
  return assistantTextBefore(transcript, transcript.length);
}

/** The text of the last assistant message(s) of the transcript, ignoring user items after them. */
export function lastAssistantText(transcript: readonly TranscriptItem[]): string {
  let end = transcript.length;
  while (end > 0 && transcript[end - 1]!.kind === "user") end--;
  return assistantTextBefore(transcript, end);
}

/** The assistant text of the items before `end`, from the last user item before it. */
function assistantTextBefore(transcript: readonly TranscriptItem[], end: number): string {
  let start = end;
  while (start > 0 && transcript[start - 1]!.kind !== "user") start--;
  const parts: string[] = [];
  for (let i = start; i < end; i++) {
    const item = transcript[i]!;
    if (item.kind === "assistant" && item.text) parts.push(item.text);
  }
  return parts.join("");
}
