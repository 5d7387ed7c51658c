import type { JsonRpcConnection } from "@adaptor/driver/kit";
import { DriverError, ErrCode } from "@adaptor/errors";
import { sandboxPolicyName, type CodexSandbox } from "../policy.js";
import type { ConfigReadParams } from "../protocol/generated/v2/ConfigReadParams.js";
import type { AskForApproval } from "../protocol/generated/v2/AskForApproval.js";
import { answerObject, requestAnswer, type ThreadOpened } from "./answers.js";
import { projectTrustLevel } from "./project-trust.js";

/** The approval policy and sandbox codex gives a new thread in a working directory, of its own. */
export interface CodexOwnSettings {
  readonly approvalPolicy: AskForApproval;
  readonly sandbox: CodexSandbox;
}

const SANDBOX_MODES: readonly string[] = ["read-only", "workspace-write", "danger-full-access"];

/**
 * What codex 0.171.0 gives a new thread in `cwd` when the `thread/start` sets neither an approval
 * policy nor a sandbox, from its effective config as `config/read` answers it for `cwd` (its
 * config.toml, `-c` overrides, the trusted project's layers):
 * - approval policy: the config's `approval_policy`, else `untrusted` for a folder its `projects`
 *   table marks untrusted, else `on-request` (a trusted folder, or one the table does not list);
 * - sandbox: the config's `sandbox_mode`, else `workspace-write` for a folder the table lists
 *   (trusted or untrusted), else `read-only`.
 *
 * A resumed or forked thread does not get these: codex restores the approval policy and sandbox
 * the thread's last turn ran under, so the driver sends them explicitly.
 *
 * @throws CodexRpcError when codex refuses `config/read`; DriverError `DRIVER` for an answer that is not an object.
 */
export async function codexOwnSettings(rpc: JsonRpcConnection, cwd: string): Promise<CodexOwnSettings> {
  const answer = await requestAnswer(rpc, "config/read", { cwd } satisfies ConfigReadParams, answerObject);
  const config = (typeof answer.config === "object" && answer.config !== null ? answer.config : {}) as Record<string, unknown>;
  const trust = await projectTrustLevel(config.projects, cwd);
  const configured = config.approval_policy as AskForApproval | null | undefined;
  const mode = config.sandbox_mode;
  return {
    approvalPolicy: configured ?? (trust === "untrusted" ? "untrusted" : "on-request"),
    sandbox: typeof mode === "string" && SANDBOX_MODES.includes(mode) ? (mode as CodexSandbox) : trust ? "workspace-write" : "read-only",
  };
}

/**
 * `opened` (the answer to `method`, `thread/start` / `thread/resume` / `thread/fork`) unless it
 * names an approval policy or sandbox other than the request sent (`undefined`: none sent; a
 * granular approval policy is not compared, nor what the answer does not name).
 *
 * @throws DriverError `DRIVER` naming what codex applied instead: the turn would not run under
 * what its report says.
 */
export function appliedAsSent(
  method: string,
  opened: ThreadOpened,
  sent: { readonly approvalPolicy?: AskForApproval | undefined; readonly sandbox?: CodexSandbox | undefined },
): ThreadOpened {
  const applied = sandboxPolicyName(opened.sandbox);
  const approvalDiffers =
    typeof sent.approvalPolicy === "string" && opened.approvalPolicy !== undefined && opened.approvalPolicy !== sent.approvalPolicy;
  const sandboxDiffers = sent.sandbox !== undefined && applied !== undefined && applied !== sent.sandbox;
  if (!approvalDiffers && !sandboxDiffers) return opened;
  const cause =
    `codex applied approval policy ${JSON.stringify(opened.approvalPolicy)} and sandbox ${JSON.stringify(applied)} where the driver sent ` +
    `${JSON.stringify(sent.approvalPolicy ?? "none")} and ${JSON.stringify(sent.sandbox ?? "none")}`;
  throw new DriverError({ op: method, device: "codex", code: ErrCode.Driver, cause });
}
