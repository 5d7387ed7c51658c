import { describe, expect, it } from "vitest";
import { parseAgUiInput } from "./ag-ui-input.js";

describe("parseAgUiInput", () => {
  it("a prompt with a non-text part is refused naming the part's type", () => {
    const body = {
      threadId: "t",
      runId: "r",
      state: {},
      tools: [],
      context: [],
      forwardedProps: {},
      messages: [{ id: "m", role: "user", content: [{ type: "image", source: { type: "url", value: "http://127.0.0.1/x.png" } }] }],
    };
    expect(() => parseAgUiInput(body)).toThrow("the prompt may only hold text parts, got a part of type image");
  });
});
