import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  ErrFeatureUnsupported,
  ErrPolicyCapabilityUnsupported,
  ErrResumeRejected,
  FeatureUnsupportedError,
  findError,
  isError,
  PolicyCapabilityUnsupportedError,
} from "adaptor";
import { z } from "zod";
import { GEMINI_RESUME_LIMIT } from "../src/index.js";
import { collect, geminiHarness, type GeminiHarness } from "./support.js";

// gemini-cli 0.61.0 session modes as run policy, the cross-process resume limit, and structured output.

let h: GeminiHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe("gemini policy, resume and structured output on the real binary", () => {
  it("read_only runs in plan mode: a write_file in the workspace and a shell command are refused without running", async () => {
    h = await geminiHarness();
    const file = join(h.env.workDir, "plan.txt");
    const asked: string[] = [];
    await h.agent.run(`WRITE_FILE ${file}`, {
      policy: { sandbox: "read_only" },
      onApproval: (r) => (asked.push(r.toolName ?? ""), r.approve()),
    });
    expect(existsSync(file)).toBe(false);
    // Plan mode writes only plan files under the CLI's own home.
    expect(h.server.turns().at(-1)?.view.lastFunctionResponse).toMatchObject({ name: "write_file", isError: true });
    expect(h.server.turns().at(-1)?.view.lastFunctionResponse?.output).toContain("must be within the designated plans directory");
    const marker = join(h.env.workDir, "plan-shell.txt");
    await h.agent.run(`SHELL_CMD touch ${marker}`, {
      policy: { sandbox: "read_only" },
      onApproval: (r) => (asked.push(r.toolName ?? ""), r.approve()),
    });
    expect(existsSync(marker)).toBe(false);
    expect(h.server.turns().at(-1)?.view.lastFunctionResponse?.output).toContain('Tool "run_shell_command" not found');
    expect(asked).toEqual([]);
  });

  it("workspace_write runs in autoEdit mode in a trusted workspace (workspaceSettings): write_file runs without asking", async () => {
    h = await geminiHarness([], { workspaceSettings: true });
    const file = join(h.env.workDir, "auto.txt");
    const stream = h.agent.stream(`WRITE_FILE ${file}`, { policy: { sandbox: "workspace_write" } });
    const events = await collect(stream);
    await stream.result();
    expect(events.filter((e) => e.type === "approval-request")).toEqual([]);
    expect(existsSync(file)).toBe(true);
  });

  it("unrestricted runs in yolo mode in a trusted workspace (workspaceSettings): the shell runs without asking", async () => {
    h = await geminiHarness([], { workspaceSettings: true });
    const file = join(h.env.workDir, "yolo.txt");
    const stream = h.agent.stream(`SHELL_CMD touch ${file}`, { policy: { sandbox: "unrestricted" } });
    const events = await collect(stream);
    await stream.result();
    expect(events.filter((e) => e.type === "approval-request")).toEqual([]);
    expect(existsSync(file)).toBe(true);
  });

  it("ask runs in default mode (set; gemini-cli confirms by its answer): a denying handler stops the shell command", async () => {
    h = await geminiHarness();
    const touched = join(h.env.workDir, "asked.txt");
    const asked: string[] = [];
    const denied = h.agent.stream(`SHELL_CMD touch ${touched}`, {
      policy: { approvals: { permission: "ask" } },
      onApproval: (r) => (asked.push(r.toolName ?? ""), r.deny("no")),
    });
    const events = await collect(denied);
    const result = await denied.result();
    expect(asked).toEqual(["run_shell_command"]);
    expect(existsSync(touched)).toBe(false);
    expect(events.some((e) => e.type === "notice" && e.message === "session mode default")).toBe(true);
    expect(result.enforcement).toEqual([
      expect.objectContaining({ field: "approvals.permission", value: "ask", enforced: true, mechanisms: ["agent_mode", "approval"] }),
    ]);
  });

  it("web search and browser policy are refused before launch", async () => {
    h = await geminiHarness();
    const stream = h.agent.stream("hi", { policy: { webSearch: "deny" } });
    const events = await collect(stream);
    const err = await stream.result().catch((e: unknown) => e);
    expect(isError(err, ErrPolicyCapabilityUnsupported)).toBe(true);
    expect(findError(err, PolicyCapabilityUnsupportedError)?.dimension).toBe("webSearch");
    expect(events.filter((e) => e.type === "process")).toEqual([]);
    expect(h.server.requests).toEqual([]);
  });

  it("a thread turn that needs a new process: resume_rejected with the gemini-cli limit, before anything starts", async () => {
    h = await geminiHarness();
    await h.agent.thread("chat").run("first turn");
    const turns = h.server.turns().length;
    // spawn: true forbids the live process, so the turn would need session/load in a new one.
    const strict = h.agent.thread("chat", { resumeOnly: true }).stream("second turn", { spawn: true });
    const events = await collect(strict);
    const err = await strict.result().catch((e: unknown) => e);
    expect(isError(err, ErrResumeRejected)).toBe(true);
    expect((err as Error).message).toContain(GEMINI_RESUME_LIMIT);
    expect(events.filter((e) => e.type === "process" && e.kind === "spawn")).toEqual([]);
    expect(h.server.turns().length).toBe(turns);
    // continue_or_start starts a fresh conversation instead, and says why.
    const fresh = h.agent.thread("chat").stream("third turn", { spawn: true });
    const freshEvents = await collect(fresh);
    await fresh.result();
    const notice = freshEvents.find((e) => e.type === "notice" && e.message === "resume rejected; starting a fresh conversation");
    expect(notice?.type === "notice" && notice.data?.["reason"]).toBe(GEMINI_RESUME_LIMIT);
    expect(h.server.turns().at(-1)?.view.userTexts).toEqual(["third turn"]);
  });

  it("thread.fork() is refused before launch: gemini-cli offers no session/fork", async () => {
    h = await geminiHarness();
    await h.agent.thread("parent").run("parent turn");
    const turns = h.server.turns().length;
    const stream = h.agent.thread("parent").fork("child").stream("child turn");
    const events = await collect(stream);
    const err = await stream.result().catch((e: unknown) => e);
    expect(isError(err, ErrFeatureUnsupported)).toBe(true);
    expect(findError(err, FeatureUnsupportedError)).toMatchObject({ driver: "gemini", feature: "fork" });
    expect(events.filter((e) => e.type === "process")).toEqual([]);
    expect(h.server.turns().length).toBe(turns);
  });

  it("structured output: prompt instructions, the JSON answer validated locally", async () => {
    h = await geminiHarness();
    const result = await h.agent.run('JSON_REPLY {"answer":"forty-two"}', { schema: z.object({ answer: z.string() }) });
    expect(result.structuredOutput).toMatchObject({ valid: true, value: { answer: "forty-two" } });
    expect(h.server.turns()[0]?.view.lastUserText).toContain("JSON Schema");
  });

  it("structured output: schemaName and schemaDescription reach the model in the prompt instructions", async () => {
    h = await geminiHarness();
    const result = await h.agent.run('JSON_REPLY {"answer":"forty-two"}', {
      schema: z.object({ answer: z.string() }),
      schemaName: "final_answer",
      schemaDescription: "The answer to the question",
    });
    expect(result.structuredOutput).toMatchObject({ source: "prompt", valid: true, schemaName: "final_answer" });
    const sent = h.server.turns()[0]?.view.lastUserText;
    expect(sent).toContain('JSON Schema (draft 2020-12) named "final_answer"');
    expect(sent).toContain("It describes: The answer to the question");
  });
});
