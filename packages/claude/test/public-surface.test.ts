// Pins the runtime export list of every public entry point, so any change of surface shows up in
// review as a diff of this file: update the literal list together with the index.ts change.
// Type-only exports are not runtime keys and are not listed.
import { describe, expect, it } from "vitest";

describe("public surface", () => {
  it("@adaptor/claude", async () => {
    expect(Object.keys(await import("@adaptor/claude")).sort()).toEqual([
      "CLAUDE_DESCRIPTOR",
      "CLAUDE_INHERITED_ENV",
      "ClaudeDriver",
      "MIN_CLAUDE_VERSION",
      "OWNED_FLAGS",
      "PINNED_CLAUDE_VERSION",
      "claude",
      "defaultClaudeCommand",
      "validateClaudeConfig",
    ]);
  });

  it("@adaptor/testkit", async () => {
    expect(Object.keys(await import("@adaptor/testkit")).sort()).toEqual([
      "GEMINI_WRITE_FILE_CONTENT",
      "PATCH_FILE_CONTENT",
      "WRITE_FILE_CONTENT",
      "addFilePatch",
      "claudeTestEnv",
      "codexConfigToml",
      "codexTestEnv",
      "directiveReply",
      "geminiDirectiveReply",
      "geminiSettings",
      "geminiTestEnv",
      "refusedLocalPort",
      "responsesDirectiveReply",
      "startAnthropicServer",
      "startChatCompletionsServer",
      "startGeminiServer",
      "startOpenAIServer",
      "terminateNextTransaction",
      "whenChatToolResult",
      "whenChatUserSays",
      "whenFunctionResponse",
      "whenGeminiPromptSays",
      "whenPromptSays",
      "whenToolOutput",
      "whenToolResult",
      "whenUserSays",
    ]);
  });

  it("@adaptor/testkit/fake-cli", async () => {
    expect(Object.keys(await import("@adaptor/testkit/fake-cli")).sort()).toEqual([
      "fakeCliEnv",
      "fakeCliPath",
      "processGone",
      "waitForProcessGone",
    ]);
  });
});
