import { describe, expect, it } from "vitest";
import { HttpError } from "../http/http-error.js";
import { parseAgUiInput } from "./ag-ui-input.js";

const LIMITS = { maxImages: 8, maxImageBytes: 5 * 1024 * 1024 };

function input(content: unknown[]): unknown {
  return {
    threadId: "t",
    runId: "r",
    state: {},
    tools: [],
    context: [],
    forwardedProps: {},
    messages: [{ id: "m", role: "user", content }],
  };
}

function refusal(body: unknown): { code: string; message: string } {
  try {
    parseAgUiInput(body, LIMITS);
  } catch (error) {
    if (error instanceof HttpError) return { code: error.code, message: error.message };
    throw error;
  }
  throw new Error("not refused");
}

describe("parseAgUiInput", () => {
  it("a prompt with a part that is neither text nor image is refused naming the part's type", () => {
    const body = input([{ type: "audio", source: { type: "data", value: "AAAA", mimeType: "audio/wav" } }]);
    expect(refusal(body)).toEqual({
      code: "bad_request",
      message: "the prompt may only hold text and image parts, got a part of type audio",
    });
  });

  it("an image by URL is refused as image_source_refused: the bridge fetches nothing for a client", () => {
    const body = input([{ type: "image", source: { type: "url", value: "http://127.0.0.1/x.png" } }]);
    expect(refusal(body).code).toBe("image_source_refused");
  });

  it("a binary part with an image mimeType becomes an image of the prompt, as a base64 data: URL", () => {
    const body = input([
      { type: "text", text: "see" },
      { type: "binary", mimeType: "image/gif", data: "R0lGODlhAQABAAAAACw=" },
    ]);
    const { prompt, images } = parseAgUiInput(body, LIMITS);
    expect({ prompt, images }).toEqual({ prompt: "see", images: [{ type: "image", url: "data:image/gif;base64,R0lGODlhAQABAAAAACw=" }] });
  });

  it("text parts alone stay a text prompt joined by newlines, without images", () => {
    const { prompt, images } = parseAgUiInput(
      input([
        { type: "text", text: "a" },
        { type: "text", text: "b" },
      ]),
      LIMITS,
    );
    expect({ prompt, images }).toEqual({ prompt: "a\nb", images: [] });
  });
});
