import { existsSync, writeFileSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { whenToolResult, whenUserSays } from "@adaptor/testkit";
import { MemoryThreadStore } from "@adaptor/threadstore";
import { Agent, InvalidPolicyError, RunError, type AgentEvent } from "adaptor";
import { harness, type Harness } from "./support.js";

// stream.setApprovalMode during a turn on the real claude binary: a switch to ask takes effect on
// the CLI (it asks from then on), and the verdict judges each call by the mode its call started under.

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/** Waits in the shell until `file` exists: the call stays running until the test creates it. */
const waitFor = (file: string): string => `while [ ! -f ${file} ]; do sleep 0.1; done; echo waited`;

describe("setApprovalMode during a turn on the real claude binary", { timeout: 120_000 }, () => {
  it("a switch to auto_approve while a deny rule holds is refused with InvalidPolicyError: the run stays under ask and the rule still denies cat secret.txt", async () => {
    h = await harness([
      { name: "first", when: whenUserSays("read it"), reply: { toolUse: { name: "Bash", input: { command: "mkdir one" } } } },
      {
        name: "second",
        when: (view) => view.messageCount === 3,
        reply: { toolUse: { name: "Bash", input: { command: "cat secret.txt" } } },
      },
      { name: "done", when: whenToolResult("Bash"), reply: (view) => ({ text: `read: ${view.lastToolResult?.content ?? ""}` }) },
    ]);
    writeFileSync(join(h.env.workDir, "secret.txt"), "TOPSECRET\n");
    const stream = h.agent.stream("read it", {
      policy: { approvals: { permission: "ask", rules: [{ toolName: "Bash", commandPrefix: "cat", outcome: "deny" }] } },
    });
    const refusals: unknown[] = [];
    const asked: unknown[] = [];
    const events: AgentEvent[] = [];
    for await (const event of stream) {
      events.push(event);
      if (event.type !== "approval-request") continue;
      asked.push(event.request.input);
      refusals.push(await stream.setApprovalMode({ permission: "auto_approve" }).catch((error: unknown) => error));
      event.request.approve();
    }
    const result = await stream.result();
    expect(asked).toEqual([expect.objectContaining({ command: "mkdir one" })]);
    expect(refusals).toHaveLength(1);
    expect(refusals[0]).toBeInstanceOf(InvalidPolicyError);
    expect(refusals[0]).toMatchObject({ field: "approvals.permission", value: "auto_approve" });
    expect((refusals[0] as Error).message).toContain('deny rule (Bash commands starting "cat", approvals.rules[0])');
    expect(events.some((e) => e.type === "notice" && e.kind === "approval.mode")).toBe(false);
    const resolved = events.flatMap((e) =>
      e.type === "notice" && e.kind === "approval.resolved" ? [[e.data?.["outcome"], e.data?.["rule"]]] : [],
    );
    expect(resolved).toEqual([
      ["approved", undefined],
      ["denied", { toolName: "Bash", commandPrefix: "cat" }],
    ]);
    expect(result.text).not.toContain("TOPSECRET");
    expect(h.server.requests.some((request) => JSON.stringify(request.view.raw).includes("TOPSECRET"))).toBe(false);
  });

  it("a run launched under bypassPermissions (unrestricted, auto_approve) and switched to ask mid-turn: the call under way finishes unasked and is no violation; the next call is asked", async () => {
    h = await harness([
      { name: "first", when: whenUserSays("two steps"), reply: { toolUse: { name: "Bash", input: { command: waitFor("go") } } } },
      { name: "second", when: whenToolResult("Bash", "waited"), reply: { toolUse: { name: "Bash", input: { command: "mkdir two" } } } },
      { name: "done", when: (view) => view.lastToolResult?.toolName === "Bash" && view.messageCount === 5, reply: { text: "both done" } },
    ]);
    const stream = h.agent.stream("two steps", { policy: { sandbox: "unrestricted", approvals: { permission: "auto_approve" } } });
    const events: AgentEvent[] = [];
    const asked: unknown[] = [];
    for await (const event of stream) {
      events.push(event);
      if (
        event.type === "tool-call" &&
        event.phase === "end" &&
        String((event.input as { command?: unknown } | undefined)?.command ?? "").includes("while")
      ) {
        // The first call is running under bypassPermissions; the switch takes effect before it ends.
        await expect(stream.setApprovalMode({ permission: "ask" })).resolves.toBe(true);
        await writeFile(join(h.env.workDir, "go"), "");
      }
      if (event.type === "approval-request") {
        asked.push(event.request.input);
        event.request.approve();
      }
    }
    const result = await stream.result();
    expect(result.text).toBe("both done");
    expect(asked).toEqual([expect.objectContaining({ command: "mkdir two" })]);
    expect(events.filter((e) => e.type === "notice" && e.kind === "approval.unasked")).toEqual([]);
    expect(events.some((e) => e.type === "notice" && e.kind === "approval.mode" && e.data?.["permission"] === "ask")).toBe(true);
    expect(existsSync(join(h.env.workDir, "two"))).toBe(true);
  });

  it("a run launched under bypassPermissions and switched to auto_deny before the prompt: the CLI asks, the SDK denies, the command does not run", async () => {
    h = await harness([
      { name: "first", when: whenUserSays("make it"), reply: { toolUse: { name: "Bash", input: { command: "mkdir denied" } } } },
      { name: "done", when: whenToolResult("Bash"), reply: (view) => ({ text: view.lastToolResult?.isError ? "refused" : "ran" }) },
    ]);
    const stream = h.agent.stream("make it", { policy: { sandbox: "unrestricted", approvals: { permission: "auto_approve" } } });
    await expect(stream.setApprovalMode({ permission: "auto_deny" })).resolves.toBe(true);
    const events: AgentEvent[] = [];
    for await (const event of stream) events.push(event);
    expect((await stream.result()).text).toBe("refused");
    expect(existsSync(join(h.env.workDir, "denied"))).toBe(false);
    expect(
      events.filter((e) => e.type === "notice" && e.kind === "approval.resolved").map((e) => e.type === "notice" && e.data?.["outcome"]),
    ).toEqual(["denied"]);
  });

  it("switched to ask before the prompt, a call the CLI still runs unasked (an allow rule of the launch) fails the run policy_violation", async () => {
    h = await harness([
      { name: "first", when: whenUserSays("make it"), reply: { toolUse: { name: "Bash", input: { command: "mkdir made" } } } },
      { name: "done", when: whenToolResult("Bash"), reply: { text: "made" } },
    ]);
    const stream = h.agent.stream("make it", { policy: { approvals: { permission: "auto_approve" } }, allowedTools: ["Bash(mkdir made)"] });
    await expect(stream.setApprovalMode({ permission: "ask" })).resolves.toBe(true);
    const events: AgentEvent[] = [];
    for await (const event of stream) {
      events.push(event);
      if (event.type === "approval-request") event.request.deny("not this one");
    }
    const error = await stream.result().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RunError);
    expect(error).toMatchObject({ reason: "policy_violation", details: { fields: ["approvals.permission"] } });
    expect(events.filter((e) => e.type === "notice" && e.kind === "approval.unasked")).toEqual([
      expect.objectContaining({ data: expect.objectContaining({ toolName: "Bash", mode: "ask" }) }),
    ]);
  });

  it("a run launched under ask and switched to auto_approve mid-turn: the call already asked runs, the next is approved without asking the host, no violation", async () => {
    h = await harness([
      { name: "first", when: whenUserSays("two folders"), reply: { toolUse: { name: "Bash", input: { command: "mkdir one" } } } },
      {
        name: "second",
        when: (view) => view.lastToolResult?.toolName === "Bash" && view.messageCount === 3,
        reply: { toolUse: { name: "Bash", input: { command: "mkdir two" } } },
      },
      { name: "done", when: (view) => view.lastToolResult?.toolName === "Bash" && view.messageCount === 5, reply: { text: "both" } },
    ]);
    const stream = h.agent.stream("two folders", { policy: { approvals: { permission: "ask" } } });
    const events: AgentEvent[] = [];
    for await (const event of stream) {
      events.push(event);
      if (event.type === "approval-request") {
        await expect(stream.setApprovalMode({ permission: "auto_approve" })).resolves.toBe(true);
        event.request.approve();
      }
    }
    expect((await stream.result()).text).toBe("both");
    expect(events.filter((e) => e.type === "approval-request")).toHaveLength(1);
    expect(events.filter((e) => e.type === "notice" && e.kind === "approval.unasked")).toEqual([]);
    await vi.waitFor(() => expect(existsSync(join(h!.env.workDir, "two"))).toBe(true));
  });
  it("a thread turn switched to ask leaves the next turn under the launch policy (unrestricted, auto_approve): its command runs unasked", async () => {
    h = await harness([
      {
        name: "first done",
        when: (view) => view.lastToolResult?.toolName === "Bash" && view.messageCount === 3,
        reply: { text: "one made" },
      },
      {
        name: "second done",
        when: (view) => view.lastToolResult?.toolName === "Bash" && view.messageCount === 7,
        reply: { text: "two made" },
      },
      { name: "first", when: whenUserSays("make one"), reply: { toolUse: { name: "Bash", input: { command: "mkdir one" } } } },
      { name: "second", when: whenUserSays("make two"), reply: { toolUse: { name: "Bash", input: { command: "mkdir two" } } } },
    ]);
    const agent = new Agent(h.agent.driver, { threadStore: new MemoryThreadStore() });
    const thread = agent.thread("switched");
    const policy = { sandbox: "unrestricted", approvals: { permission: "auto_approve" } } as const;
    const first = thread.stream("make one", { policy });
    await expect(first.setApprovalMode({ permission: "ask" })).resolves.toBe(true);
    const asked: unknown[] = [];
    for await (const event of first) {
      if (event.type === "approval-request") {
        asked.push(event.request.input);
        event.request.approve();
      }
    }
    expect((await first.result()).text).toBe("one made");
    expect(asked).toEqual([expect.objectContaining({ command: "mkdir one" })]);
    // The next turn names no approval mode switch: it runs under the launch policy.
    const next = thread.stream("make two", { policy });
    const events: AgentEvent[] = [];
    for await (const event of next) events.push(event);
    expect((await next.result()).text).toBe("two made");
    // Launched under bypassPermissions, the CLI asks nobody (not even the SDK's auto_approve).
    expect(events.filter((e) => e.type === "notice" && e.kind === "approval.requested")).toEqual([]);
    expect(existsSync(join(h.env.workDir, "two"))).toBe(true);
    await agent.close();
  });
  it("a thread turn switched to ask leaves the next turn under the settings file's mode (acceptEdits, approvals inherited): its shell write runs unasked", async () => {
    h = await harness([
      {
        name: "first done",
        when: (view) => view.lastToolResult?.toolName === "Bash" && view.messageCount === 3,
        reply: { text: "one made" },
      },
      {
        name: "second done",
        when: (view) => view.lastToolResult?.toolName === "Bash" && view.messageCount === 7,
        reply: { text: "two made" },
      },
      { name: "first", when: whenUserSays("make one"), reply: { toolUse: { name: "Bash", input: { command: "mkdir one" } } } },
      { name: "second", when: whenUserSays("make two"), reply: { toolUse: { name: "Bash", input: { command: "mkdir two" } } } },
    ]);
    await writeFile(join(h.env.configDir, "settings.json"), JSON.stringify({ permissions: { defaultMode: "acceptEdits" } }));
    const agent = new Agent(h.agent.driver, { threadStore: new MemoryThreadStore() });
    const thread = agent.thread("inherited");
    const first = thread.stream("make one");
    await expect(first.setApprovalMode({ permission: "ask" })).resolves.toBe(true);
    const asked: unknown[] = [];
    for await (const event of first) {
      if (event.type === "approval-request") {
        asked.push(event.request.input);
        event.request.approve();
      }
    }
    expect((await first.result()).text).toBe("one made");
    expect(asked).toEqual([expect.objectContaining({ command: "mkdir one" })]);
    // No onApproval: a call the CLI asked about would end the run approval_denied.
    expect((await thread.run("make two")).text).toBe("two made");
    expect(existsSync(join(h.env.workDir, "two"))).toBe(true);
    await agent.close();
  });
});
