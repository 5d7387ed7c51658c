import type { ApprovalAsk, ApprovalDecision } from "@adaptor/driver";
import { AdaptorError } from "@adaptor/errors";
import type { ThreadMode } from "../thread/thread-context.js";
import { canonicalJson } from "../thread/fingerprint.js";

/** An answer a resumed turn applies without asking, when the CLI asks the same again. */
export interface StoredAnswer {
  readonly kind: string;
  readonly toolName?: string;
  readonly input?: unknown;
  /** The working directory of the run the ask came from, when known (see {@link TurnData.cwd}). */
  readonly cwd?: string;
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
  /**
   * The working directory of the run that suspended (its request's `cwd`), when the SDK knew it:
   * a resume on a host whose checkout lives elsewhere matches the CLI's asks with this prefix of
   * their paths replaced by its own. Absent in data written without it: inputs then match as they are.
   */
  readonly cwd?: string;
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
    !Array.isArray(data.answers) ||
    (data.cwd !== undefined && typeof data.cwd !== "string")
  ) {
    throw new AdaptorError(`approval ${approvalId}: its stored turn is not one this SDK can resume`);
  }
  return data as TurnData;
}

/** What may follow a working directory where it is one: a separator, the end, space, a quote or punctuation. */
const CWD_END = String.raw`(?=$|[/\\\s"'\x60;:,)\]}])`;

/** Stands for a run's working directory in the inputs compared by {@link StoredAnswers}. */
const CWD_TOKEN = "\u0000cwd\u0000";

/** `value` with every occurrence of `cwd` in its strings replaced by {@link CWD_TOKEN} (a copy; `value` unchanged). */
function withCwdToken(value: unknown, cwd: string | undefined): unknown {
  // "/" alone (or no cwd) would rewrite every path: such inputs are compared as they are.
  if (cwd === undefined || cwd.length < 2) return value;
  const root = cwd.endsWith("/") ? cwd.slice(0, -1) : cwd;
  // The directory itself, not a longer name it begins (`/a/repo` in `/a/repo/x`, not in `/a/repo2`).
  const pattern = new RegExp(root.replace(/[.*+?^${}()|[\]\\]/g, "\\$&") + CWD_END, "g");
  const walk = (node: unknown): unknown => {
    if (typeof node === "string") return node.replace(pattern, CWD_TOKEN);
    if (Array.isArray(node)) return node.map(walk);
    if (typeof node === "object" && node !== null)
      return Object.fromEntries(Object.entries(node).map(([k, v]) => [walk(k) as string, walk(v)]));
    return node;
  };
  return walk(value);
}

/** The key an ask and a stored answer are matched by: kind, tool and canonical input (with its run's cwd as a token). */
function matchKey(kind: string, toolName: string | undefined, input: unknown, cwd: string | undefined): string {
  let body: string;
  try {
    body = canonicalJson(withCwdToken(input ?? null, cwd), "input");
  } catch {
    body = "<unrepresentable>";
  }
  return `${kind}\u0000${toolName ?? ""}\u0000${body}`;
}

/**
 * The stored answers of a resumed turn: each applies once, to the first ask of the same kind,
 * tool and input (compared as canonical JSON: key order does not matter, any other difference does,
 * except that the working directory a stored answer was asked in and this run's count as the same
 * wherever they occur in the input's strings, so a checkout elsewhere on another host still matches).
 */
export class StoredAnswers {
  readonly #byKey = new Map<string, ApprovalDecision[]>();
  #cwd: string | undefined;

  /**
   * Adds answers to match against later asks of a run in working directory `cwd` (undefined when
   * the SDK does not know it: then every input is compared as it is).
   */
  add(answers: readonly StoredAnswer[], cwd?: string): void {
    if (cwd !== undefined) this.#cwd = cwd;
    for (const answer of answers) {
      const relative = answer.cwd !== undefined && cwd !== undefined;
      const key = matchKey(answer.kind, answer.toolName, answer.input, relative ? answer.cwd : undefined);
      this.#byKey.set(key, [...(this.#byKey.get(key) ?? []), answer.decision]);
    }
  }

  /** The stored decision for `ask`, consumed; undefined when none matches. */
  take(ask: ApprovalAsk): ApprovalDecision | undefined {
    for (const key of new Set([
      matchKey(ask.kind, ask.toolName, ask.input, this.#cwd),
      matchKey(ask.kind, ask.toolName, ask.input, undefined),
    ])) {
      const list = this.#byKey.get(key);
      const decision = list?.shift();
      if (list && list.length === 0) this.#byKey.delete(key);
      if (decision) return decision;
    }
    return undefined;
  }
}
