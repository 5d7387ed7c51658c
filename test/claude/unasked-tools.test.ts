import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { whenToolResult, whenUserSays, type ScriptRule } from "@adaptor/testkit";
import type { AgentEvent } from "adaptor";
import { drainEvents, harness, type Harness } from "./support.js";

// Real claude binary (pinned 2.1.332) under `approvals.permission: "ask"`: the tools it runs
// without asking the host (Read, ToolSearch, its task list) have no effect outside the
// conversation, and the driver declares them (`askExemptTools`), so they raise no
// `approval.unasked` notice; tools that can have an effect (Write, Bash) are asked about.

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const ASK = { policy: { approvals: { permission: "ask" as const } } };

/** A rule per trigger calling `name` with the input `input(workDir)` gives, then one reporting its result. */
function calls(workDir: () => string, tools: readonly [trigger: string, name: string, input: (dir: string) => unknown][]): ScriptRule[] {
  return tools.flatMap(([trigger, name, input]) => [
    { when: whenUserSays(trigger), reply: () => ({ toolUse: { name, input: input(workDir()) as Record<string, unknown> } }) },
    { when: whenToolResult(name), reply: { text: `${name} done` } },
  ]);
}

function unaskedNotices(events: readonly AgentEvent[]): unknown[] {
  return events.flatMap((e) => (e.type === "notice" && e.kind === "approval.unasked" ? [e.data] : []));
}

describe("approval.unasked on the real claude binary", { timeout: 180_000 }, () => {
  it("under ask, claude reads a file and creates a task without asking: they run, and no approval.unasked notice comes", async () => {
    let dir = "";
    h = await harness(
      calls(
        () => dir,
        [
          ["read-notes", "Read", (d) => ({ file_path: join(d, "notes.txt") })],
          ["make-task", "TaskCreate", () => ({ subject: "check notes", description: "read them again" })],
        ],
      ),
    );
    dir = h.env.workDir;
    writeFileSync(join(dir, "notes.txt"), "secret notes\n");
    const asked: string[] = [];
    for (const prompt of ["read-notes please", "make-task please"]) {
      const stream = h.agent.stream(prompt, { ...ASK, onApproval: (r) => (asked.push(r.toolName ?? ""), r.approve()) });
      const events = await drainEvents(stream);
      await stream.result();
      const result = events.find((e) => e.type === "tool-result");
      expect(result).toMatchObject({ type: "tool-result", isError: false });
      expect(unaskedNotices(events)).toEqual([]);
    }
    expect(asked).toEqual([]);
    const read = h.server.requests.find((r) => JSON.stringify(r.body).includes("secret notes"));
    expect(read).toBeDefined();
  });

  it("under ask, a Write is asked about (and so raises no notice either)", async () => {
    let dir = "";
    h = await harness(calls(() => dir, [["write-file", "Write", (d) => ({ file_path: join(d, "new.txt"), content: "x\n" })]]));
    dir = h.env.workDir;
    const asked: string[] = [];
    const stream = h.agent.stream("write-file please", { ...ASK, onApproval: (r) => (asked.push(r.toolName ?? ""), r.approve()) });
    const events = await drainEvents(stream);
    await stream.result();
    expect(asked).toEqual(["Write"]);
    expect(unaskedNotices(events)).toEqual([]);
  });
});
