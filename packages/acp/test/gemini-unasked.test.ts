import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { whenGeminiPromptSays } from "@adaptor/testkit";
import { collect, geminiHarness, type GeminiHarness } from "./support.js";

// Real gemini-cli (pinned 0.61.0) under `approvals.permission: "ask"`: it reads a file without
// asking; the ACP tool call says `kind: "read"`, so no `approval.unasked` notice comes.

let h: GeminiHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe("approval.unasked on gemini-cli", () => {
  it("under ask, read_file runs without asking and carries kind read: no approval.unasked notice", async () => {
    let file = "";
    h = await geminiHarness([
      { when: whenGeminiPromptSays("READ_NOTES"), reply: () => ({ functionCall: { name: "read_file", args: { file_path: file } } }) },
    ]);
    file = join(h.env.workDir, "notes.txt");
    writeFileSync(file, "secret notes\n");
    const asked: string[] = [];
    const stream = h.agent.stream("READ_NOTES please", {
      policy: { approvals: { permission: "ask" } },
      onApproval: (request) => (asked.push(request.toolName ?? ""), request.approve()),
    });
    const events = await collect(stream);
    const result = await stream.result();
    expect(asked).toEqual([]);
    expect(result.text).toContain("secret notes");
    expect(events.find((e) => e.type === "tool-call" && e.phase === "end")).toMatchObject({ name: "read_file", kind: "read" });
    expect(events.filter((e) => e.type === "notice" && e.kind === "approval.unasked")).toEqual([]);
  });
});
