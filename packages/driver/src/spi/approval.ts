import type { ApprovalKind } from "./descriptor.js";

/** What a driver asks the host to decide (becomes an `ApprovalRequest` in the SDK). */
export interface ApprovalAsk {
  /**
   * What is asked: `permission`, `plan_review`, `question` or `elicitation` (an MCP server's request
   * for input: `details` as the kit's `elicitationAsk` makes them; an `approve`'s `updatedInput` is the
   * form's content, a `deny` declines, `answer("cancel")` cancels).
   */
  readonly kind: ApprovalKind;
  /** One line for people, e.g. `"Bash: npm test"`. The SDK cuts one longer than 1000 characters (see `ApprovalRequest.title`). */
  readonly title: string;
  /**
   * The tool that wants to run, when the ask is about a tool call. The SDK cuts a name longer than
   * 200 characters to its first 200, as on `ToolCallEvent.name`.
   */
  readonly toolName?: string;
  /** Provider id of that tool call. */
  readonly toolCallId?: string;
  /** The delegation's tool call id when a subagent makes the call (see `ToolCallEvent.parentToolCallId`). */
  readonly parentToolCallId?: string;
  /**
   * The tool input the CLI proposes. Nested deeper than 64 levels (it or {@link details}), the SDK
   * denies the ask without asking anyone (the mode `auto_approve` still approves it) and carries it
   * cut there, as `ToolCallEvent.input`.
   */
  readonly input?: unknown;
  /**
   * For a `question`: its options (the host may also answer free text). For a `permission`: the
   * named answers the agent's protocol takes beyond approve and deny (the SDK then lets the host
   * `answer()` exactly these keys and passes the key through); absent when it takes only those two.
   */
  readonly choices?: readonly { readonly key: string; readonly label: string; readonly description?: string }[];
  /** Protocol detail, e.g. Claude's `permission_suggestions` or a diff; cut at 64 levels of nesting, as {@link input}. */
  readonly details?: Readonly<Record<string, unknown>>;
  /**
   * True when the CLI runs an approve's `updatedInput` in place of {@link input} (Claude's
   * `can_use_tool`). Absent or false: the protocol cannot carry an edited input, so the SDK refuses
   * `approve({ updatedInput })` and denies the call instead of running the original input.
   */
  readonly inputEditable?: boolean;
}

/**
 * The host's decision, as the driver forwards it to the CLI. An `approve` carries `updatedInput`
 * (a plain object) only for an ask whose `inputEditable` is true; a driver that cannot run it must
 * not run the original input either.
 */
export type ApprovalDecision =
  | { readonly outcome: "approve"; readonly updatedInput?: unknown }
  | { readonly outcome: "deny"; readonly reason: string }
  | { readonly outcome: "answer"; readonly choice: string };
