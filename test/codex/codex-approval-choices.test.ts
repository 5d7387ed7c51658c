import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { whenToolOutput, type ResponsesReply, type ResponsesRequestView } from "@adaptor/testkit";
import { InvalidOptionError } from "@adaptor/errors";
import { codexHarness, runAsking, type CodexHarness } from "./support.js";

// Real codex binary (pinned 0.171.0), app-server transport: a permission ask lists codex's own
// decisions in `request.choices`, and `answer(key)` sends that decision.

let h: CodexHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const TWICE = 'echo run >> twice.txt; echo "count=$(wc -l < twice.txt)"';
const shell = (cmd: string): ResponsesReply => ({ functionCall: { name: "exec_command", arguments: { cmd } } });
const patch = (body: string): ResponsesReply => ({
  customToolCall: { name: "apply_patch", input: `*** Begin Patch\n${body}*** End Patch\n` },
});
/** How many apply_patch outputs the request carries: the model's next patch follows the previous one's output. */
const patches = (view: ResponsesRequestView): number =>
  ((view.raw as { input?: { type?: string }[] }).input ?? []).filter((item) => item.type === "custom_tool_call_output").length;
/** Rules answering the i-th apply_patch output with `steps[i - 1]`. */
const afterPatches = (steps: ResponsesReply[]) =>
  steps.map((reply, i) => ({ when: (view: ResponsesRequestView) => patches(view) === i + 1, reply }));

describe("codex approvals: answer(choice) sends codex's own decision (real binary)", () => {
  it("a command ask lists accept, acceptForSession, decline and cancel as its choices", async () => {
    h = await codexHarness();
    const { requests } = await runAsking(h, "SHELL_CMD echo listed > listed.txt", (request) => request.deny("only looking"));
    expect(requests[0]?.kind).toBe("permission");
    expect(requests[0]?.choices?.map((choice) => choice.key)).toEqual(["accept", "acceptForSession", "decline", "cancel"]);
    expect(requests[0]?.choices?.[1]).toMatchObject({ label: "Allow for this session" });
    // codex's own suggestion of what to show: it takes decline and acceptForSession all the same.
    expect(requests[0]?.details?.["availableDecisions"]).toEqual(["accept", expect.objectContaining({}), "cancel"]);
  });

  it('answer("acceptForSession"): the command runs, and the same command later in the turn runs without a second ask', async () => {
    h = await codexHarness({ rules: [{ when: whenToolOutput("exec_command", "count=1"), reply: shell(TWICE) }] });
    const { requests, thrown, verdict } = await runAsking(h, `SHELL_CMD ${TWICE}`, (request) => request.answer("acceptForSession"));
    expect(thrown).toEqual([]);
    expect(requests).toHaveLength(1);
    expect(requests[0]?.status).toBe("answered");
    expect(readFileSync(join(h.env.workDir, "twice.txt"), "utf8")).toBe("run\nrun\n");
    expect(verdict).toMatchObject({ text: expect.stringContaining("count=2") });
  });

  it('answer("acceptForSession") on a file change grants its files: a later patch of only those files (the granted move\'s source and destination) runs unasked, covered by the answer; a patch naming any other file is asked', async () => {
    h = await codexHarness({
      rules: afterPatches([
        patch("*** Update File: a.txt\n*** Move to: m.txt\n@@\n-hello from fake codex model\n+moved\n"),
        patch("*** Add File: a.txt\n+again\n"),
        patch("*** Update File: m.txt\n@@\n-moved\n+moved twice\n*** Update File: a.txt\n@@\n-again\n+again twice\n"),
        patch("*** Add File: b.txt\n+bee\n"),
        patch("*** Update File: a.txt\n@@\n-again twice\n+thrice\n*** Add File: d.txt\n+dee\n"),
      ]),
    });
    // The first patch (a.txt) is accepted once; the move's ask is granted for the session.
    const { requests, thrown, verdict, events } = await runAsking(h, "PATCH_FILE a.txt", (request, index) =>
      index === 1 ? request.answer("acceptForSession") : request.approve(),
    );
    expect(thrown).toEqual([]);
    const asked = requests.map((r) => ((r.input as { changes: { path: string }[] }).changes ?? []).map((c) => c.path.split("/").pop()));
    // a.txt re-created and m.txt + a.txt updated ran unasked; b.txt and a.txt + d.txt were asked.
    expect(asked).toEqual([["a.txt"], ["a.txt"], ["b.txt"], ["a.txt", "d.txt"]]);
    expect(verdict).not.toBeInstanceOf(Error);
    expect(events.filter((e) => e.type === "notice" && e.kind === "approval.unasked")).toEqual([]);
    const results = events.filter((e) => e.type === "tool-result" && e.name === "apply_patch");
    expect(results.map((e) => e.type === "tool-result" && e.coveredByAsk === true)).toEqual([false, false, true, true, false, false]);
    expect(readFileSync(join(h.env.workDir, "m.txt"), "utf8")).toBe("moved twice\n");
    expect(readFileSync(join(h.env.workDir, "a.txt"), "utf8")).toBe("thrice\n");
  });

  it('answer("accept") runs the command once; the same command again is asked again', async () => {
    h = await codexHarness({ rules: [{ when: whenToolOutput("exec_command", "count=1"), reply: shell(TWICE) }] });
    const { requests, thrown } = await runAsking(h, `SHELL_CMD ${TWICE}`, (request) => request.answer("accept"));
    expect(thrown).toEqual([]);
    expect(requests).toHaveLength(2);
    expect(readFileSync(join(h.env.workDir, "twice.txt"), "utf8")).toBe("run\nrun\n");
  });

  it('answer("cancel"): the command does not run and codex interrupts the turn', async () => {
    h = await codexHarness();
    const { requests, thrown, verdict, events } = await runAsking(h, "SHELL_CMD echo no > cancelled.txt", (request) =>
      request.answer("cancel"),
    );
    expect(thrown).toEqual([]);
    expect(requests[0]?.status).toBe("answered");
    expect(existsSync(join(h.env.workDir, "cancelled.txt"))).toBe(false);
    expect(events.some((e) => e.type === "notice" && e.kind === "approval.resolved" && e.data?.outcome === "answered")).toBe(true);
    expect(verdict).toMatchObject({ name: "RunError", reason: "cancelled", details: { status: "interrupted" } });
  });

  it("an unknown choice throws InvalidOptionError naming the choices; the ask stays pending and a later approve runs the command", async () => {
    h = await codexHarness();
    const { requests, thrown } = await runAsking(h, "SHELL_CMD echo later > later.txt", (request) => {
      try {
        request.answer("approve-all");
      } finally {
        request.approve();
      }
    });
    expect(thrown).toHaveLength(1);
    expect(thrown[0]).toBeInstanceOf(InvalidOptionError);
    expect(thrown[0]).toMatchObject({ subject: "answer()", field: "choice" });
    expect((thrown[0] as Error).message).toContain('"acceptForSession"');
    expect(requests[0]?.status).toBe("approved");
    expect(readFileSync(join(h.env.workDir, "later.txt"), "utf8")).toBe("later\n");
  });
});
