import type { ApprovalAsk, ApprovalDecision } from "@adaptor/driver";
import { AdaptorError } from "@adaptor/errors";
import type { ThreadMode } from "../thread/thread-context.js";
import { canonicalJson } from "../thread/fingerprint.js";

/** An answer a resumed turn applies without asking, when the CLI asks the same again. */
export interface StoredAnswer {
  readonly kind: string;
  readonly toolName?: string;
  readonly input?: unknown;
  readonly decision: ApprovalDecision;
}

/** What the SDK keeps in a pending approval's `turn` to run the turn again. */
export interface TurnData {
  readonly v: 1;
  /** The turn's prompt. */
  readonly prompt: string;
  /** How the turn treated the stored conversation. */
  readonly mode: ThreadMode;
  /** Answers of earlier suspensions of the same turn, applied again on the next resume. */
  readonly answers: readonly StoredAnswer[];
}

/** Reads the `turn` of a stored approval. @throws AdaptorError for data this SDK did not write. */
export function readTurnData(turn: unknown, approvalId: string): TurnData {
  const data = turn as Partial<TurnData> | null;
  if (
    typeof data !== "object" ||
    data === null ||
    data.v !== 1 ||
    typeof data.prompt !== "string" ||
    (data.mode !== "continue_or_start" && data.mode !== "resume_only" && data.mode !== "start_new") ||
    !Array.isArray(data.answers)
  ) {
    throw new AdaptorError(`approval ${approvalId}: its stored turn is not one this SDK can resume`);
  }
  return data as TurnData;
}

/** The key an ask and a stored answer are matched by: kind, tool and canonical input. */
function matchKey(kind: string, toolName: string | undefined, input: unknown): string {
  let body: string;
  try {
    body = canonicalJson(input ?? null, "input");
  } catch {
    body = "<unrepresentable>";
  }
  return `${kind}\u0000${toolName ?? ""}\u0000${body}`;
}

/**
 * The stored answers of a resumed turn: each applies once, to the first ask of the same kind,
 * tool and input (compared as canonical JSON: key order does not matter, any other difference does).
 */
export class StoredAnswers {
  readonly #byKey = new Map<string, ApprovalDecision[]>();

  /** Adds answers to match against later asks. */
  add(answers: readonly StoredAnswer[]): void {
    for (const answer of answers) {
      const key = matchKey(answer.kind, answer.toolName, answer.input);
      this.#byKey.set(key, [...(this.#byKey.get(key) ?? []), answer.decision]);
    }
  }

  /** The stored decision for `ask`, consumed; undefined when none matches. */
  take(ask: ApprovalAsk): ApprovalDecision | undefined {
    const key = matchKey(ask.kind, ask.toolName, ask.input);
    const list = this.#byKey.get(key);
    const decision = list?.shift();
    if (list && list.length === 0) this.#byKey.delete(key);
    return decision;
  }
}
