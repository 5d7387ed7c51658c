import type { ApprovalKind } from "./descriptor.js";

/** What a driver asks the host to decide (becomes an `ApprovalRequest` in the SDK). */
export interface ApprovalAsk {
  /** What is asked: `permission`, `plan_review` or `question`. */
  readonly kind: ApprovalKind;
  /** One line for people, e.g. `"Bash: npm test"`. */
  readonly title: string;
  /** The tool that wants to run, when the ask is about a tool call. */
  readonly toolName?: string;
  /** Provider id of that tool call. */
  readonly toolCallId?: string;
  /** The tool input the CLI proposes. */
  readonly input?: unknown;
  /** Choices for a `question`. */
  readonly choices?: readonly { readonly key: string; readonly label: string; readonly description?: string }[];
  /** Protocol detail, e.g. Claude's `permission_suggestions` or a diff. */
  readonly details?: Readonly<Record<string, unknown>>;
}

/** The host's decision, as the driver forwards it to the CLI. */
export type ApprovalDecision =
  | { readonly outcome: "approve"; readonly updatedInput?: unknown }
  | { readonly outcome: "deny"; readonly reason: string }
  | { readonly outcome: "answer"; readonly choice: string };
