import type { DriverDescriptor } from "@adaptor/driver";
import { deepFreeze } from "@adaptor/driver/kit";

/**
 * Capabilities of the app-server transport, each proved against codex 0.171.0 in this package's
 * real-binary tests (packages/codex/test/): resume and fork in a new process, process reuse for
 * thread turns (codex-reuse.test.ts), skills (codex-skills.test.ts), MCP servers over stdio and
 * HTTP and the SDK's host tools (mcp-servers.test.ts), native structured output, the three sandbox
 * levels, web search allow/deny, and the four permission modes.
 */
export const CODEX_DESCRIPTOR: DriverDescriptor = deepFreeze<DriverDescriptor>({
  type: "codex",
  displayName: "Codex",
  capabilities: {
    // modelSwitch: `thread/resume` with another `model` continues the thread (test/codex/model-switch.test.ts).
    // list: `thread/list` on a short-lived app-server (test/codex/list-sessions.test.ts); info and
    // rename: `thread/read` and `thread/name/set` on one (test/codex/session-edits.test.ts);
    // forkSession: `thread/fork` on one (test/codex/fork-session.test.ts).
    sessions: {
      resume: true,
      fork: true,
      fromCheckpoint: true,
      modelSwitch: true,
      list: true,
      messages: true,
      info: true,
      rename: true,
      forkSession: true,
    },
    // A thread's app-server process is parked after a healthy turn; the next turn is a turn/start on it.
    processReuse: true,
    structuredOutput: { native: true, prompt: false },
    // Staged per process and announced with `skills/extraRoots/set` (test/codex/codex-skills.test.ts).
    skills: true,
    // `mcp_servers` in the thread's config (test/codex/mcp-servers.test.ts); codex speaks no SSE.
    // callIds: every tools/call carries `_meta.callId`, its mcpToolCall item's id (test/codex/host-tool-event-order.test.ts).
    mcp: { transports: ["stdio", "http"], callIds: true },
    policy: {
      sandbox: ["read_only", "workspace_write", "unrestricted"],
      webSearch: ["allow", "deny"],
      browser: [],
      activeExecutionTimeout: false,
    },
    // question: the model's request_user_input (test/codex/elicitation.test.ts); elicitation: an MCP
    // server's own mcpServer/elicitation/request (same file).
    approvals: {
      permission: ["inherit", "ask", "auto_approve", "auto_deny"],
      plan_review: ["inherit"],
      question: ["inherit", "ask", "auto_deny"],
      elicitation: ["inherit", "ask", "auto_deny"],
    },
    systemPrompt: ["replace", "append"],
    // Writable roots of workspace_write (thread config sandbox_workspace_write.writable_roots);
    // refused with no sandbox in the policy (test/codex/additional-directories.test.ts).
    additionalDirectories: true,
    effort: ["minimal", "low", "medium", "high", "xhigh", "max", "ultra"],
    // Images as codex image files: localImage inputs of turn/start (app-server), --image (exec).
    images: true,
    // interrupt: turn/interrupt, the process kept; send: turn/steer (test/codex/during-turn.test.ts).
    turnControl: { interrupt: true, send: true, sendImages: true },
    // onPromptSubmit: asked before turn/start (and turn/steer), its additionalContext a developer
    // message put into the thread's history ahead of the prompt (thread/inject_items); onStop: asked at each completed turn, continueWith another turn/start
    // on the thread within the run (test/codex/hooks.test.ts).
    hooks: ["promptSubmit", "stop"],
    // A model.response notice per thread/tokenUsage/updated (one per model response); the turn is
    // interrupted at the last allowed response's first tool call (app-server/turn-limit.ts); no cost reported.
    budgets: { turns: true },
    streaming: { textDeltas: true, thinking: true, toolCallArgs: false },
  },
});

/**
 * Capabilities of the `codex exec --json` batch transport (proved in packages/codex/test/): no
 * approval channel (only `inherit`, which for exec means codex never asks), no deltas (whole
 * items), resume in a new process, native structured output, sandbox levels.
 */
export const CODEX_EXEC_DESCRIPTOR: DriverDescriptor = deepFreeze<DriverDescriptor>({
  type: "codex",
  displayName: "Codex (exec)",
  capabilities: {
    // modelSwitch: `exec -m … resume` continues the thread on that model (test/codex/model-switch.test.ts).
    // list: as app-server's (the listing runs a short-lived app-server whatever the transport); forkSession too.
    sessions: {
      resume: true,
      fork: false,
      fromCheckpoint: true,
      modelSwitch: true,
      list: true,
      messages: true,
      info: true,
      rename: true,
      forkSession: true,
    },
    processReuse: false,
    structuredOutput: { native: true, prompt: false },
    // `codex exec` has no request to announce an extra skills root: a run with skills is refused.
    skills: false,
    // `-c mcp_servers.…` would put a server's env and headers in argv, and exec cannot ask the host
    // before a tool call: MCP servers and host tools are refused before launch.
    mcp: { transports: [] },
    policy: {
      sandbox: ["read_only", "workspace_write", "unrestricted"],
      webSearch: ["allow", "deny"],
      browser: [],
      activeExecutionTimeout: false,
    },
    approvals: { permission: ["inherit"], plan_review: ["inherit"], question: ["inherit"] },
    approvalRefusalReason:
      'codex exec cannot ask the host: permission "inherit" runs it as the Codex SDK does (it never asks: the peer\'s approvalPolicy "never"); the app-server transport (the default) takes every approval mode',
    systemPrompt: ["replace", "append"],
    // Writable roots of workspace_write (-c sandbox_workspace_write.writable_roots), as app-server's.
    additionalDirectories: true,
    effort: ["minimal", "low", "medium", "high", "xhigh", "max", "ultra"],
    // Images as codex image files: localImage inputs of turn/start (app-server), --image (exec).
    images: true,
    // A stop hook would be called after the process ended, its continueWith too late to carry:
    // refused before launch. onPromptSubmit is observed before launch, so a verdict fails before it.
    refusedHooks: ["stop"],
    streaming: { textDeltas: false, thinking: false, toolCallArgs: false },
  },
});
