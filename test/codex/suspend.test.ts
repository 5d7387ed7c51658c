import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { MemoryThreadStore } from "@adaptor/threadstore";
import { PATCH_FILE_CONTENT, addFilePatch, startOpenAIServer, whenPromptSays, type OpenAIServer } from "@adaptor/testkit";
import type { AgentEvent, Stream } from "adaptor";
import { alive, codexHost } from "./support.js";
import { closedAfterEach } from "../support/closed-after-each.js";

// A suspended turn on the real codex binary: host A suspends a thread turn on codex's file-change
// approval (the CLI ends, nothing is written, nothing is committed); host B (its own CODEX_HOME and
// working directory, the same store) answers it, and the turn runs again from the committed
// checkpoint there: codex asks again, the stored answer decides, the file is written once, and the
// thread goes on with every committed turn and no trace of the suspended attempt.

const ASK = { approvals: { permission: "ask" } } as const;

const open = closedAfterEach();

const host = (server: OpenAIServer, store: MemoryThreadStore) => codexHost(server, store, (item) => open.push(item));

/** Drains `stream`: its events, the pids it spawned, and its Result. */
async function drain(stream: Stream) {
  const events: AgentEvent[] = [];
  for await (const event of stream as AsyncIterable<AgentEvent>) events.push(event);
  const pids = events.flatMap((event) =>
    event.type === "process" && event.kind === "spawn" && event.pid !== undefined ? [event.pid] : [],
  );
  return { events, pids, result: await stream.result() };
}

describe("suspended turns on the real codex binary", { timeout: 120_000 }, () => {
  it("host A suspends on the file-change approval; host B answers it, the turn reruns from the checkpoint and writes the file once", async () => {
    const server = await startOpenAIServer({ rules: [] });
    open.push(server);
    const store = new MemoryThreadStore();
    const a = await host(server, store);
    const b = await host(server, store);

    await drain(a.agent.thread("fix").stream("turn one [fx-t1]"));
    const committed = await a.agent.thread("fix").checkpoint();
    const suspended = await drain(a.agent.thread("fix").stream("PATCH_FILE patched.txt [fx-t2]", { policy: ASK, suspend: {} }));
    expect(suspended.result.status).toBe("suspended");
    expect(suspended.result.pendingApproval).toMatchObject({ key: "fix", kind: "permission", toolName: "apply_patch", status: "pending" });
    expect(existsSync(join(a.env.workDir, "patched.txt"))).toBe(false);
    expect((await a.agent.thread("fix").checkpoint())?.revision).toBe(committed?.revision);
    for (const pid of suspended.pids) expect(alive(pid)).toBe(false);

    const [pending] = await b.agent.thread("fix").pendingApprovals();
    expect(pending?.id).toBe(suspended.result.pendingApproval!.id);
    const resumed = await drain(b.agent.thread("fix").streamAnswer(pending!.id, { outcome: "approve" }, { policy: ASK }));
    expect(resumed.result.status).toBe("completed");
    expect(resumed.result.text).toMatch(/^Done: /);
    expect(resumed.events.some((event) => event.type === "notice" && event.kind === "approval.replayed")).toBe(true);
    expect(resumed.events.some((event) => event.type === "approval-request")).toBe(false);
    expect(readFileSync(join(b.env.workDir, "patched.txt"), "utf8")).toBe(PATCH_FILE_CONTENT);
    expect(existsSync(join(a.env.workDir, "patched.txt"))).toBe(false);
    expect((await b.agent.thread("fix").checkpoint())?.revision).toBe(committed!.revision + 1);
    expect((await b.agent.thread("fix").pendingApprovals()).filter((p) => p.status === "pending")).toEqual([]);

    const three = await drain(b.agent.thread("fix").stream("turn three [fx-t3]"));
    expect(three.result.text).toMatch(/3 user message/);
    const last = JSON.stringify(server.requests.at(-1)!.body);
    for (const marker of ["[fx-t1]", "[fx-t2]", "[fx-t3]"]) expect(last).toContain(marker);
  });

  it("the suspended turn's Result carries the usage and transcript of the model call that ran before the question", async () => {
    const server = await startOpenAIServer({
      rules: [
        {
          when: whenPromptSays("write the notes"),
          reply: {
            customToolCall: { name: "apply_patch", input: addFilePatch("notes.txt") },
            usage: { input_tokens: 777, output_tokens: 11 },
          },
        },
      ],
    });
    open.push(server);
    const a = await host(server, new MemoryThreadStore());
    const suspended = await drain(a.agent.thread("notes").stream("write the notes", { policy: ASK, suspend: {} }));
    expect(suspended.result.status).toBe("suspended");
    expect(suspended.result.usage).toMatchObject({ inputTokens: 777, outputTokens: 11 });
    expect(suspended.result.transcript().some((item) => item.kind === "tool-call" && item.toolName === "apply_patch")).toBe(true);
    expect(suspended.events.at(-1)).toMatchObject({ type: "run-finished", ok: true, suspended: true, usage: { inputTokens: 777 } });
    // The suspended call ends as suspended, not as a denial: codex's rejection of it is not reported.
    const callId = suspended.result.pendingApproval!.toolCallId;
    expect(suspended.events.some((event) => event.type === "tool-call" && event.id === callId)).toBe(true);
    expect(suspended.events.filter((event) => event.type === "tool-result" && event.id === callId)).toEqual([]);
  });
});
