// A driver for the fixture CLI `mycli.mjs` on `OneShotCliDriver`, and deliberately broken variants
// of it: the conformance kit's own tests run the kit against each and expect the clause it breaks to fail.
import { fileURLToPath } from "node:url";
import type { Driver, DriverDescriptor, DriverEvent, DriverFailure, Usage } from "@adaptor/driver";
import { deepFreeze, OneShotCliDriver, validateDriverConfig, type CommonDriverConfig } from "@adaptor/driver/kit";
import { SAFE_ENV_BASE } from "@adaptor/driver/process";
import { optionChecks } from "@adaptor/errors";

/** The fixture CLI's script. */
export const MYCLI = fileURLToPath(new URL("./mycli.mjs", import.meta.url));

/** The good driver, and one variant per way of breaking the driver contract. */
export const VARIANTS = [
  "good",
  "auto-deny-runs", // under approvals.permission=auto_deny, runs the tool without asking
  "ask-runs", // under an explicit approvals.permission=ask, runs the tool without asking
  "swallow-crash", // drops the failure of a crash (no result line, non-zero exit): a success
  "fake-policy", // does not pass --read-only for sandbox read_only, and does not report it
  "fake-enforcement", // does not pass --read-only, and reports read_only enforced by that flag
  "events-after-terminal", // emits a delta 200 ms after the terminal line
  "lose-usage", // drops the usage the CLI reported
  "unasked-interrupt", // says interrupted: true for a turn nothing interrupted
  "sdk-events", // emits a run-finished event of its own, which only the SDK may emit
] as const;

/** One of {@link VARIANTS}. */
export type Variant = (typeof VARIANTS)[number];

/** The fixture driver's config. */
export interface MyCliConfig extends CommonDriverConfig {
  readonly sessionDir?: string;
  readonly variant?: Variant;
}

function descriptorFor(): DriverDescriptor {
  return deepFreeze<DriverDescriptor>({
    type: "mycli",
    displayName: "mycli (conformance fixture)",
    capabilities: {
      sessions: { resume: true, fork: false },
      processReuse: false,
      structuredOutput: { native: false, prompt: true },
      skills: false,
      mcp: { transports: [] },
      policy: { sandbox: ["read_only"], webSearch: [], browser: [], activeExecutionTimeout: false },
      approvals: { permission: ["inherit", "ask", "auto_deny"], plan_review: ["inherit"], question: ["inherit"] },
      streaming: { textDeltas: true, thinking: false, toolCallArgs: false },
    },
  });
}

class MyCliDriver extends OneShotCliDriver<MyCliConfig> {
  constructor(config: MyCliConfig) {
    const variant = config.variant ?? "good";
    super(
      {
        descriptor: descriptorFor(),
        enforcement: (field) =>
          field === "sandbox"
            ? { mechanisms: ["cli_flag"], detail: "--read-only" }
            : { mechanisms: ["approval"], detail: "mycli asks; the SDK's approval broker answers" },
        validate: (c) =>
          validateDriverConfig("mycli", c, {
            shape: { sessionDir: optionChecks.string({ nonEmpty: true }), variant: optionChecks.string({ nonEmpty: true }) },
          }),
        command: process.execPath,
        inheritedEnv: SAFE_ENV_BASE,
        outputSchemaRefusal: "mycli has no native structured output",
        args: (c, request) => [
          ...(c.command ? [] : [MYCLI]),
          ...(c.sessionDir ? ["--session-dir", c.sessionDir] : []),
          ...(request.session?.resumeId ? ["--resume", request.session.resumeId] : []),
          ...(request.policy?.sandbox === "read_only" && variant !== "fake-policy" && variant !== "fake-enforcement"
            ? ["--read-only"]
            : []),
        ],
        startTurn: ({ proc, request, sink: rawSink }) => {
          let text = "";
          let usage: Usage | undefined;
          let resumeId: string | undefined;
          let failure: DriverFailure | undefined;
          let done = false;
          return {
            begin: (sink) => {
              proc.writeJson({ type: "prompt", text: request.prompt }).catch(() => undefined);
              return (v) => {
                switch (v.type) {
                  case "delta":
                    text += String(v.text);
                    sink.emit({ type: "text-delta", text: String(v.text) });
                    return false;
                  case "tool_request": {
                    const id = String(v.id);
                    const command = String(v.command);
                    sink.emit({ type: "tool-call", phase: "start", id, name: "shell" });
                    sink.emit({ type: "tool-call", phase: "end", id, name: "shell", input: { command } });
                    const mode = request.policy?.approvals?.permission;
                    if ((variant === "auto-deny-runs" && mode === "auto_deny") || (variant === "ask-runs" && mode === "ask")) {
                      proc.writeJson({ type: "approval", id, allow: true }).catch(() => undefined);
                      return false;
                    }
                    void sink
                      .requestApproval({
                        kind: "permission",
                        title: `shell: ${command}`,
                        toolName: "shell",
                        toolCallId: id,
                        input: { command },
                      })
                      .then((d) =>
                        proc.writeJson(
                          d.outcome === "approve"
                            ? { type: "approval", id, allow: true }
                            : { type: "approval", id, allow: false, reason: d.outcome === "deny" ? d.reason : "" },
                        ),
                      )
                      .catch(() => undefined);
                    return false;
                  }
                  case "tool_result":
                    sink.emit({
                      type: "tool-result",
                      id: String(v.id),
                      name: "shell",
                      output: String(v.output),
                      isError: v.is_error === true,
                    });
                    return false;
                  case "result": {
                    done = true;
                    resumeId = String(v.session_id);
                    const u = v.usage as { input_tokens: number; output_tokens: number } | undefined;
                    if (u && variant !== "lose-usage") usage = { inputTokens: u.input_tokens, outputTokens: u.output_tokens };
                    if (variant === "events-after-terminal") setTimeout(() => rawSink.emit({ type: "text-delta", text: " LATE" }), 200);
                    return true;
                  }
                  case "error":
                    done = true;
                    failure = { reason: v.code === "session_not_found" ? "resume_rejected" : "agent_error", message: String(v.message) };
                    return true;
                  default:
                    return false;
                }
              };
            },
            end: () => proc.closeStdin(),
            finish: (exit) => {
              if (!done && !failure)
                failure = {
                  reason: "agent_error",
                  message: `mycli exited ${exit.code ?? exit.signal} without a result`,
                  details: exit.signal ? { exitSignal: exit.signal } : { exitCode: exit.code },
                };
              return {
                text: failure ? "" : text,
                transcript: failure ? [] : [{ kind: "assistant" as const, text }],
                usage,
                resumeId,
                failure,
              };
            },
          };
        },
      },
      config,
    );
  }
}

/**
 * The fixture driver of `variant`. Its `result.enforcement` (its plan's rule) says `read_only` is the
 * `--read-only` flag and the approval modes are the SDK broker's (`approval`); the fake-policy variant leaves its
 * sandbox out, the fake-enforcement variant claims the flag it never passes, the swallow-crash
 * variant drops the failure of a crash, the unasked-interrupt variant says every turn was
 * interrupted, the sdk-events variant emits a `run-finished` of its own first.
 */
export function myCliDriver(config: MyCliConfig = {}): Driver {
  const variant = config.variant ?? "good";
  const driver = new MyCliDriver(config);
  const run = driver.run.bind(driver);
  driver.run = async (request, sink, signal) => {
    if (variant === "sdk-events") sink.emit({ type: "run-finished", ok: false } as unknown as DriverEvent);
    let response = await run(request, sink, signal);
    if (variant === "unasked-interrupt") response = { ...response, interrupted: true };
    const details = response.failure?.details;
    if (variant === "swallow-crash" && (details?.exitCode !== undefined || details?.exitSignal !== undefined)) {
      const { failure: _swallowed, ...success } = response;
      response = success;
    }
    if (variant !== "fake-policy") return response;
    return { ...response, enforcement: (response.enforcement ?? []).filter((entry) => entry.field !== "sandbox") };
  };
  return driver;
}
