import type { ApprovalAsk, ApprovalDecision } from "../../spi/approval.js";

/** An MCP server's request for input from the user, as a CLI relays it (MCP `elicitation/create`). */
export interface ElicitationRequest {
  /** The name of the MCP server that asks, as the run declared it. */
  readonly server: string;
  /** What the server tells the user. */
  readonly message: string;
  /** `form`: the user fills in {@link requestedSchema}; `url`: the user opens {@link url}. */
  readonly mode: "form" | "url";
  /** The form's JSON Schema (an object of primitive properties), for `form`. */
  readonly requestedSchema?: Readonly<Record<string, unknown>>;
  /** The page to open, for `url`. */
  readonly url?: string;
  /** The server's id of a `url` elicitation, which its completion notification names. */
  readonly elicitationId?: string;
}

/** The answer to an elicitation, as MCP's `ElicitResult` carries it. */
export interface ElicitationResult {
  /** `accept`: the user submitted (a form's {@link content}, or opened the URL); `decline`: refused; `cancel`: dismissed. */
  readonly action: "accept" | "decline" | "cancel";
  /** The form's content, for an `accept` of a `form`. */
  readonly content?: Readonly<Record<string, unknown>>;
}

/** The named answers of every elicitation: `answer()` passes the key through as the action. */
export const ELICITATION_CHOICES: NonNullable<ApprovalAsk["choices"]> = Object.freeze([
  Object.freeze({
    key: "accept",
    label: "Accept",
    description: "submit the form as given (approve({ updatedInput }) gives its content), or confirm the URL was opened",
  }),
  Object.freeze({ key: "decline", label: "Decline", description: "refuse what the server asks (the same as deny)" }),
  Object.freeze({ key: "cancel", label: "Cancel", description: "dismiss the request without a choice" }),
]);

/** Longest title, in characters (UTF-16 units), before it is cut with an ellipsis. */
const TITLE_MAX = 120;

/**
 * The approval ask for an MCP server's elicitation: kind `elicitation`, `title`
 * `<server>: <message's first line>`, `choices` {@link ELICITATION_CHOICES}, `inputEditable` for a
 * form (an approve's `updatedInput` is the form's content, checked by the SDK against the schema
 * before it is sent), and `details` `{ server, message, mode, requestedSchema?, url?, elicitationId? }`.
 */
export function elicitationAsk(request: ElicitationRequest): ApprovalAsk {
  const line = request.message.split("\n", 1)[0] ?? "";
  const title = `${request.server}: ${line}`;
  return {
    kind: "elicitation",
    title: title.length > TITLE_MAX ? `${title.slice(0, TITLE_MAX - 1)}…` : title,
    choices: ELICITATION_CHOICES,
    inputEditable: request.mode === "form",
    details: {
      server: request.server,
      message: request.message,
      mode: request.mode,
      ...(request.requestedSchema !== undefined ? { requestedSchema: request.requestedSchema } : {}),
      ...(request.url !== undefined ? { url: request.url } : {}),
      ...(request.elicitationId !== undefined ? { elicitationId: request.elicitationId } : {}),
    },
  };
}

/**
 * The MCP answer for the host's decision on an elicitation ask: an approve is `accept` (with its
 * `updatedInput` as the content; a form accepted without one sends `{}`), a deny `decline` (also an
 * expired or refused ask), an answer the action its key names (`accept`, `decline`, `cancel`;
 * another key declines).
 */
export function elicitationResult(request: Pick<ElicitationRequest, "mode">, decision: ApprovalDecision): ElicitationResult {
  const form = request.mode === "form";
  switch (decision.outcome) {
    case "approve": {
      const content = isRecord(decision.updatedInput) ? decision.updatedInput : {};
      return form ? { action: "accept", content } : { action: "accept" };
    }
    case "deny":
      return { action: "decline" };
    case "answer":
      if (decision.choice === "accept") return form ? { action: "accept", content: {} } : { action: "accept" };
      return { action: decision.choice === "cancel" ? "cancel" : "decline" };
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
