import type { SessionSummary } from "@adaptor/driver";
import type { FileEnds } from "@adaptor/driver/process";

/** What a transcript's ends tell: the session as listed, or why it was skipped. */
export type TranscriptReading =
  | { readonly kind: "session"; readonly session: SessionSummary }
  /** A subagent's transcript or a session of another cwd: not listed, nothing to report. */
  | { readonly kind: "ignored" }
  | { readonly kind: "skipped"; readonly reason: string };

/** A user prompt that is the CLI's own markup, not what the user typed (a slash command's tags, an interrupt marker). */
const NOT_TYPED = /^(?:\s*<[a-z][\w-]*[\s>]|\[Request interrupted by user[^\]]*\])/;
/** Longest title or prompt kept, in UTF-16 code units (a pasted file is cut, with an ellipsis). */
const MAX_TEXT = 500;

type Entry = Record<string, unknown>;

/**
 * The complete JSON object lines of `text`: `cutStart` drops the first piece (a line the read
 * began inside), `cutEnd` keeps the last piece only if it parses (a line still being written does not).
 */
function entries(text: string, cutStart: boolean): Entry[] {
  const lines = text.split("\n");
  if (cutStart) lines.shift();
  const found: Entry[] = [];
  for (const line of lines) {
    if (line.trim() === "") continue;
    try {
      const value: unknown = JSON.parse(line);
      if (typeof value === "object" && value !== null && !Array.isArray(value)) found.push(value as Entry);
    } catch {
      // a cut, torn or foreign line
    }
  }
  return found;
}

function text(value: unknown): string | undefined {
  if (typeof value !== "string") return undefined;
  const trimmed = value.trim();
  if (trimmed === "") return undefined;
  return trimmed.length > MAX_TEXT ? `${trimmed.slice(0, MAX_TEXT)}…` : trimmed;
}

function date(value: unknown): Date | undefined {
  if (typeof value !== "string") return undefined;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? undefined : new Date(ms);
}

/** The text the user typed in a `user` entry, or undefined for a tool result, the CLI's own markup or a meta entry. */
function typedPrompt(entry: Entry): string | undefined {
  if (entry.type !== "user" || entry.isMeta === true || entry.isCompactSummary === true || entry.isSidechain === true) return undefined;
  const message = entry.message as { role?: unknown; content?: unknown } | undefined;
  if (typeof message !== "object" || message === null || message.role !== "user") return undefined;
  let typed: string | undefined;
  if (typeof message.content === "string") typed = message.content;
  else if (Array.isArray(message.content)) {
    if (message.content.some((block) => (block as { type?: unknown } | null)?.type === "tool_result")) return undefined;
    const first = message.content.find((block) => (block as { type?: unknown } | null)?.type === "text") as { text?: unknown } | undefined;
    typed = typeof first?.text === "string" ? first.text : undefined;
  }
  return typed === undefined || NOT_TYPED.test(typed) ? undefined : text(typed);
}

/** The last value of `key` over `list` (later entries win), as text. */
function last(list: readonly Entry[], type: string, key: string): string | undefined {
  for (let i = list.length - 1; i >= 0; i--) {
    const entry = list[i]!;
    if (entry.type === type) {
      const found = text(entry[key]);
      if (found !== undefined) return found;
    }
  }
  return undefined;
}

/** The tag of the last `tag` entry over `list`: an empty one (a cleared tag) is no tag. */
function lastTag(list: readonly Entry[]): string | undefined {
  for (let i = list.length - 1; i >= 0; i--) if (list[i]!.type === "tag") return text(list[i]!.tag);
  return undefined;
}

/**
 * Reads one Claude Code transcript (`<id>.jsonl`, one JSON entry a line, each carrying the
 * `sessionId`) from its first and last bytes: the working directory, git branch and creation time
 * of its first entries, the first prompt the user typed, and the title: the one the user gave
 * (the last `custom-title` entry, e.g. `/rename`, among the last bytes, else `savedTitle`, the
 * title file the CLI keeps beside the transcript, else one among the first bytes), else the CLI's (`ai-title`), else the last prompt the CLI
 * recorded (`last-prompt`), the summary (`summary`), the first prompt. The update time is the
 * file's. A file whose first bytes hold no complete entry of a session (empty, torn, another
 * format) is skipped with the reason; the tag is the last `tag` entry's (an empty one clears it); a subagent's transcript, or one of another `cwd` than
 * `wantedCwd`, is ignored.
 */
export function readTranscriptEnds(
  sessionId: string,
  ends: FileEnds,
  wantedCwd: string | undefined,
  savedTitle?: string,
): TranscriptReading {
  if (ends.size === 0) return { kind: "skipped", reason: "the transcript is empty" };
  const whole = ends.head.length === ends.size;
  const head = entries(ends.head.toString("utf8"), false);
  // A tail read right after the head continues the head's last line: cut either way.
  const tail = entries(ends.tail.toString("utf8"), true);
  const all = [...head, ...tail];
  const ofSession = all.filter((entry) => typeof entry.type === "string" && typeof entry.sessionId === "string");
  if (ofSession.length === 0)
    return {
      kind: "skipped",
      reason: whole
        ? `no complete entry of a Claude Code session in its ${ends.size} bytes`
        : `no complete entry of a Claude Code session in its first ${ends.head.length} and last ${ends.tail.length} bytes`,
    };
  if (ofSession[0]!.isSidechain === true) return { kind: "ignored" };
  const cwd = ofSession.map((entry) => entry.cwd).find((value): value is string => typeof value === "string" && value !== "");
  if (wantedCwd !== undefined && cwd !== wantedCwd) return { kind: "ignored" };
  const firstPrompt = head.map(typedPrompt).find((value) => value !== undefined);
  // As the CLI reads it: a title entry among the last entries, else the title file, else one in the head.
  const latest = whole ? head : tail;
  const title =
    last(latest, "custom-title", "customTitle") ??
    text(savedTitle) ??
    last(all, "custom-title", "customTitle") ??
    last(all, "ai-title", "aiTitle") ??
    last(all, "last-prompt", "lastPrompt") ??
    last(all, "summary", "summary") ??
    firstPrompt;
  const branches = all.map((entry) => text(entry.gitBranch)).filter((value) => value !== undefined);
  const tag = lastTag(all);
  const createdAt = ofSession.map((entry) => date(entry.timestamp)).find((value) => value !== undefined);
  return {
    kind: "session",
    session: {
      sessionId,
      ...(cwd !== undefined ? { cwd } : {}),
      ...(title !== undefined ? { title } : {}),
      ...(firstPrompt !== undefined ? { firstPrompt } : {}),
      ...(tag !== undefined ? { tag } : {}),
      ...(createdAt !== undefined ? { createdAt } : {}),
      updatedAt: ends.modified,
      ...(branches.length > 0 ? { gitBranch: branches.at(-1)! } : {}),
      bytes: ends.size,
    },
  };
}
