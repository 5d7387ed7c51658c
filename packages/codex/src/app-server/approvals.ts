import type { ApprovalAsk, ApprovalDecision } from "@adaptor/driver";
import type { ApplyPatchApprovalResponse } from "../protocol/generated/ApplyPatchApprovalResponse.js";
import type { ExecCommandApprovalResponse } from "../protocol/generated/ExecCommandApprovalResponse.js";
import type { FileChange } from "../protocol/generated/FileChange.js";
import type { ServerRequest } from "../protocol/generated/ServerRequest.js";
import type { CommandExecutionRequestApprovalResponse } from "../protocol/generated/v2/CommandExecutionRequestApprovalResponse.js";
import type { FileChangeRequestApprovalResponse } from "../protocol/generated/v2/FileChangeRequestApprovalResponse.js";
import type { ThreadItem } from "../protocol/generated/v2/ThreadItem.js";
import { renderChanges } from "./turn-state.js";

/** The server requests that are approvals (current v2 names and the legacy ones). */
export const APPROVAL_METHODS: readonly string[] = Object.freeze([
  "item/commandExecution/requestApproval",
  "item/fileChange/requestApproval",
  "execCommandApproval",
  "applyPatchApproval",
]);

/** The current (v2) approval requests: their answers carry only a choice, no reason and no edited input. */
export const V2_APPROVAL_METHODS: readonly string[] = Object.freeze([
  "item/commandExecution/requestApproval",
  "item/fileChange/requestApproval",
]);

/** The answer to an approval request, in the shape its method expects. */
export type ApprovalAnswer =
  CommandExecutionRequestApprovalResponse | FileChangeRequestApprovalResponse | ExecCommandApprovalResponse | ApplyPatchApprovalResponse;

function legacyDiff(fileChanges: { [path in string]?: FileChange }): string {
  return Object.entries(fileChanges)
    .map(([path, change]) => {
      if (!change) return path;
      if (change.type === "update")
        return `update ${path}${change.move_path ? ` -> ${change.move_path}` : ""}\n${change.unified_diff}`.trimEnd();
      return `${change.type} ${path}\n${change.content}`.trimEnd();
    })
    .join("\n");
}

/**
 * The {@link ApprovalAsk} (kind `permission`) for an approval server request, with the command or
 * the diff in `details`; undefined for any other request. `lookup` finds the thread item a v2
 * file-change request refers to (codex sends only its `itemId`; the changes came in `item/started`).
 */
export function approvalAsk(request: ServerRequest, lookup: (itemId: string) => ThreadItem | undefined): ApprovalAsk | undefined {
  switch (request.method) {
    case "item/commandExecution/requestApproval": {
      const p = request.params;
      const command = p.command ?? "";
      return {
        kind: "permission",
        title: `shell: ${command}`,
        toolName: "shell",
        toolCallId: p.itemId,
        input: { command, cwd: p.cwd ?? null },
        choices: V2_ASK_CHOICES,
        details: {
          method: request.method,
          command,
          cwd: p.cwd ?? null,
          ...(p.reason ? { reason: p.reason } : {}),
          ...(p.commandActions ? { commandActions: p.commandActions } : {}),
          ...(p.proposedExecpolicyAmendment ? { proposedExecpolicyAmendment: p.proposedExecpolicyAmendment } : {}),
          ...availableDecisions(p),
        },
      };
    }
    case "item/fileChange/requestApproval": {
      const p = request.params;
      const item = lookup(p.itemId);
      const changes = item?.type === "fileChange" ? item.changes : [];
      return {
        kind: "permission",
        title: `apply_patch: ${changes.map((c) => c.path).join(", ") || p.itemId}`,
        toolName: "apply_patch",
        toolCallId: p.itemId,
        input: { changes },
        choices: V2_ASK_CHOICES,
        details: {
          method: request.method,
          diff: renderChanges(changes),
          changes,
          ...(p.reason ? { reason: p.reason } : {}),
          ...(p.grantRoot ? { grantRoot: p.grantRoot } : {}),
        },
      };
    }
    case "execCommandApproval": {
      const p = request.params;
      const command = p.command.join(" ");
      return {
        kind: "permission",
        title: `shell: ${command}`,
        toolName: "shell",
        toolCallId: p.callId,
        input: { command: p.command, cwd: p.cwd },
        choices: LEGACY_ASK_CHOICES,
        details: { method: request.method, command, argv: p.command, cwd: p.cwd, ...(p.reason ? { reason: p.reason } : {}) },
      };
    }
    case "applyPatchApproval": {
      const p = request.params;
      return {
        kind: "permission",
        title: `apply_patch: ${Object.keys(p.fileChanges).join(", ")}`,
        toolName: "apply_patch",
        toolCallId: p.callId,
        input: { fileChanges: p.fileChanges },
        choices: LEGACY_ASK_CHOICES,
        details: {
          method: request.method,
          diff: legacyDiff(p.fileChanges),
          fileChanges: p.fileChanges,
          ...(p.reason ? { reason: p.reason } : {}),
          ...(p.grantRoot ? { grantRoot: p.grantRoot } : {}),
        },
      };
    }
    default:
      return undefined;
  }
}

type Choice = NonNullable<ApprovalAsk["choices"]>[number];

const V2_CHOICES = ["accept", "acceptForSession", "decline", "cancel"] as const;
const LEGACY_CHOICES = ["approved", "approved_for_session", "abort"] as const;

const ONCE = { label: "Allow once", description: "run this call" };
const SESSION = { label: "Allow for this session", description: "run this call, and the same ones later in the session without asking" };
const CANCEL = { label: "Cancel the turn", description: "do not run this call, and interrupt the turn" };

/** What each decision codex takes does, for people. */
const CHOICE_TEXT: Readonly<Record<(typeof V2_CHOICES)[number] | (typeof LEGACY_CHOICES)[number], Omit<Choice, "key">>> = {
  accept: ONCE,
  acceptForSession: SESSION,
  decline: { label: "Decline", description: "do not run this call; the turn goes on" },
  cancel: CANCEL,
  approved: ONCE,
  approved_for_session: SESSION,
  abort: CANCEL,
};

/**
 * The choices of a v2 approval request: the four bare decisions its answer type takes. Not its
 * `availableDecisions`: codex 0.171.0 lists `accept`, an execpolicy amendment and `cancel` there
 * for a command, yet takes `decline` (what a deny sends) and honours `acceptForSession`.
 */
const V2_ASK_CHOICES: readonly Choice[] = Object.freeze(V2_CHOICES.map((key) => ({ key, ...CHOICE_TEXT[key] })));

/** The choices of a legacy approval request: the bare decisions besides a denial with its reason. */
const LEGACY_ASK_CHOICES: readonly Choice[] = Object.freeze(LEGACY_CHOICES.map((key) => ({ key, ...CHOICE_TEXT[key] })));

/** `{ availableDecisions }` (codex's suggestion of what to show) when the request has them, else `{}`. */
function availableDecisions(params: object): { availableDecisions?: readonly unknown[] } {
  const value = (params as { availableDecisions?: unknown }).availableDecisions;
  return Array.isArray(value) ? { availableDecisions: value } : {};
}

/**
 * The decision codex is told: an `approve` with an `updatedInput` becomes a deny (no codex approval
 * answer can carry an edited command or patch, and accepting would run the original); any other
 * decision as it is.
 */
export function effectiveDecision(decision: ApprovalDecision): ApprovalDecision {
  if (decision.outcome === "approve" && decision.updatedInput !== undefined) {
    return { outcome: "deny", reason: "the host approved an edited input, which codex cannot run; the call was not run" };
  }
  return decision;
}

/** Whether `answer` grants the call for the rest of the session (`acceptForSession`; legacy `approved_for_session`). */
export function grantsForSession(answer: ApprovalAnswer): boolean {
  return answer.decision === "acceptForSession" || answer.decision === "approved_for_session";
}

/**
 * Whether `answer` refuses the call: codex does not run it (`decline`, `cancel`; legacy
 * `{ denied }`, `abort`, `timed_out`).
 */
export function refusesCall(answer: ApprovalAnswer): boolean {
  const decision = answer.decision;
  if (typeof decision === "object") return "denied" in decision;
  return decision === "decline" || decision === "cancel" || decision === "abort" || decision === "timed_out";
}

/**
 * The answer for `method` given the host's decision: `approve` → `accept` (legacy `approved`);
 * `deny` → `decline` (legacy `{denied: {rejection}}`); `answer(choice)` passes one of the ask's
 * `choices` (`accept`, `acceptForSession`, `decline`, `cancel`; legacy `approved`,
 * `approved_for_session`, `abort`). The SDK refuses any other choice before it gets here
 * (`InvalidOptionError`); a driver handed one directly declines.
 * An `approve` with an `updatedInput` declines ({@link effectiveDecision}; the asks are not
 * `inputEditable`, so the SDK refuses such an approve before it gets here).
 */
export function approvalAnswer(method: string, host: ApprovalDecision): ApprovalAnswer {
  const decision = effectiveDecision(host);
  const legacy = method === "execCommandApproval" || method === "applyPatchApproval";
  if (legacy) {
    if (decision.outcome === "approve") return { decision: "approved" };
    if (decision.outcome === "answer" && (LEGACY_CHOICES as readonly string[]).includes(decision.choice)) {
      return { decision: decision.choice as (typeof LEGACY_CHOICES)[number] };
    }
    const rejection = decision.outcome === "deny" ? decision.reason : "declined";
    return { decision: { denied: { rejection } } };
  }
  if (decision.outcome === "approve") return { decision: "accept" };
  if (decision.outcome === "answer" && (V2_CHOICES as readonly string[]).includes(decision.choice)) {
    return { decision: decision.choice as (typeof V2_CHOICES)[number] };
  }
  return { decision: "decline" };
}
