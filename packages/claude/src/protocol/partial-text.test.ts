import type { TranscriptItem } from "@adaptor/driver";
import { describe, expect, it } from "vitest";
import { lastAssistantText, partialText } from "./partial-text.js";

describe("the text a stopped Claude turn wrote so far", () => {
  it("is the assistant text after the last user item, in order, thinking and tools left out", () => {
    const transcript: TranscriptItem[] = [
      { kind: "assistant", text: "earlier turn" },
      { kind: "user", text: "go on" },
      { kind: "assistant", text: "one " },
      { kind: "thinking", text: "hmm" },
      { kind: "assistant", text: "two" },
    ];
    expect(partialText(transcript)).toBe("one two");
    expect(partialText([...transcript, { kind: "user", text: "stop" }])).toBe("");
  });

  it("the last assistant message(s) skip the user items after them", () => {
    const transcript: TranscriptItem[] = [
      { kind: "user", text: "hi" },
      { kind: "assistant", text: "a" },
      { kind: "assistant", text: "b" },
      { kind: "user", text: "hook feedback" },
      { kind: "user", text: "more feedback" },
    ];
    expect(lastAssistantText(transcript)).toBe("ab");
  });

  it("400,000 assistant messages are joined in one pass (seconds at most; a rebuild per message took minutes)", () => {
    const count = 400_000;
    const transcript: TranscriptItem[] = [{ kind: "user", text: "hi" }];
    for (let i = 0; i < count; i++) transcript.push({ kind: "assistant", text: "x" });
    const started = Date.now();
    const text = partialText(transcript);
    const last = lastAssistantText(transcript);
    expect(text.length).toBe(count);
    expect(last.length).toBe(count);
    expect(Date.now() - started).toBeLessThan(10_000);
  });
});
