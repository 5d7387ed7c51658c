import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runDriver } from "@adaptor/driver/testing";
import { ErrHumanDecisionModeUnsupported } from "@adaptor/driver";
import { isError } from "@adaptor/errors";
import { CODEX_EXEC_DESCRIPTOR, execArgsForTest } from "./exec-args.js";
import { alive, codexHarness, type CodexHarness } from "./support.js";

// `codex exec --json` as the batch transport, on the real binary.

let h: CodexHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const exec = { transport: "exec" } as const;

describe("codex exec transport on the real binary", () => {
  it("declares no approval channel and no deltas; the prompt never appears in argv (read from stdin via `-`)", () => {
    expect(CODEX_EXEC_DESCRIPTOR.capabilities.approvals.permission).toEqual(["inherit"]);
    expect(CODEX_EXEC_DESCRIPTOR.capabilities.streaming.textDeltas).toBe(false);
    const args = execArgsForTest("-rf / secret prompt");
    expect(args.at(-1)).toBe("-");
    expect(args.some((arg) => arg.includes("secret prompt"))).toBe(false);
  });

  it("text turn: text, usage, thread checkpoint", async () => {
    h = await codexHarness({ config: exec });
    const run = await runDriver(h.driver, { prompt: "hello exec" });
    expect(run.response?.failure).toBeUndefined();
    expect(run.response?.text).toContain('first user text: "hello exec"');
    expect(run.response?.usage).toMatchObject({ inputTokens: 100, outputTokens: 10 });
    expect(run.response?.checkpoint?.resumeId).toMatch(/^[0-9a-f-]{36}$/);
    expect(JSON.parse(run.response?.raw.terminal?.json ?? "{}")).toMatchObject({ type: "turn.completed" });
  });

  it("resume in a new process carries the history", async () => {
    h = await codexHarness({ config: exec });
    const first = await runDriver(h.driver, { prompt: "exec first" });
    const resumeId = first.response?.checkpoint?.resumeId as string;
    const second = await runDriver(h.driver, { prompt: "exec second", session: { resumeId } });
    expect(second.response?.checkpoint?.resumeId).toBe(resumeId);
    expect(h.server.responses().at(-1)?.view.userTexts).toEqual(["exec first", "exec second"]);
  });

  it("unknown thread id: resume_rejected, no checkpoint", async () => {
    h = await codexHarness({ config: exec });
    const run = await runDriver(h.driver, { prompt: "x", session: { resumeId: "01a22aad-0000-7151-8abd-ab26857b7754" } });
    expect(run.response?.failure).toMatchObject({ reason: "resume_rejected" });
    expect(run.response?.failure?.message).toContain("no rollout found");
    expect(run.response?.checkpoint).toBeUndefined();
  });

  it("structured output through --output-schema (strict form), parsed value returned", async () => {
    h = await codexHarness({ config: exec });
    const outputSchema = { type: "object", properties: { answer: { type: "string" } } };
    const run = await runDriver(h.driver, { prompt: 'JSON_REPLY {"answer":"exec"}', outputSchema });
    expect(run.response?.structured).toEqual({ answer: "exec" });
    expect(h.server.responses()[0]?.view.outputSchema).toEqual({
      type: "object",
      properties: { answer: { type: ["string", "null"] } },
      required: ["answer"],
      additionalProperties: false,
    });
  });

  it("sandbox read_only cannot create a file; workspace_write can; file changes reported", async () => {
    h = await codexHarness({ config: exec });
    await runDriver(h.driver, { prompt: "SHELL_CMD echo x > ro.txt", policy: { sandbox: "read_only" } });
    expect(existsSync(join(h.env.workDir, "ro.txt"))).toBe(false);
    const run = await runDriver(h.driver, { prompt: "PATCH_FILE rw.txt", policy: { sandbox: "workspace_write" } });
    expect(existsSync(join(h.env.workDir, "rw.txt"))).toBe(true);
    expect(run.recording.ofType("tool-result").find((r) => r.name === "apply_patch")).toMatchObject({ isError: false });
  });

  it("sandbox workspace_write stays in the workspace; unrestricted writes next to it", async () => {
    h = await codexHarness({ config: exec, outsideTmp: true });
    await runDriver(h.driver, { prompt: "SHELL_CMD echo out > ../ws.txt", policy: { sandbox: "workspace_write" } });
    expect(existsSync(join(h.env.root, "ws.txt"))).toBe(false);
    await runDriver(h.driver, { prompt: "SHELL_CMD echo out > ../free.txt", policy: { sandbox: "unrestricted" } });
    expect(existsSync(join(h.env.root, "free.txt"))).toBe(true);
  });

  it("HTTP 400: agent_error with the API's message", async () => {
    h = await codexHarness({ config: exec });
    const run = await runDriver(h.driver, { prompt: "HTTP_ERROR 400" });
    expect(run.response?.failure).toMatchObject({ reason: "agent_error", message: "scripted error 400" });
  });

  it.each(["ask", "auto_approve", "auto_deny"] as const)(
    "permission %s is refused before launch, saying what to use instead (inherit, the peer's approvalPolicy never; or app-server)",
    async (permission) => {
      h = await codexHarness({ config: exec });
      const run = await runDriver(h.driver, { prompt: "x", policy: { approvals: { permission } } });
      expect(isError(run.error, ErrHumanDecisionModeUnsupported)).toBe(true);
      expect((run.error as Error).message).toBe(
        `codex: approval mode permission=${permission} is not supported (codex exec cannot ask the host: permission "inherit" runs it as the Codex SDK does (it never asks: the peer's approvalPolicy "never"); the app-server transport (the default) takes every approval mode)`,
      );
      expect(run.recording.events).toEqual([]);
    },
  );

  it("cancel terminates exec (no interrupt channel); the process is gone", async () => {
    h = await codexHarness({ config: exec });
    const run = await runDriver(h.driver, { prompt: "SLOW_MS 20000" }, { cancelAfterMs: 800 });
    expect(run.error).toBe(run.abortReason);
    expect(alive(run.recording.pids()[0] as number)).toBe(false);
  });
});
