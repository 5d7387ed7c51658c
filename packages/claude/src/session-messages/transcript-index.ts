import type { ScannedLine } from "./transcript-lines.js";

/** What an entry of the transcript is, for the conversation shown. */
export type EntryKind =
  /** A prompt of the user (typed, or sent by an app). */
  | "prompt"
  /** One content block of an assistant reply (the CLI writes one entry per block). */
  | "assistant"
  /** The results of tool calls the CLI sent the model back (a `user` entry of `tool_result` blocks only). */
  | "toolResult"
  /** Anything else that links the chain (attachments, system lines, meta prompts, an entry too long to read): not shown. */
  | "other";

/** The small record kept of one transcript entry: where it is and how it links, never its content. */
export interface IndexedEntry {
  readonly uuid: string;
  /** The entry it follows (`parentUuid`, else `logicalParentUuid` across a compaction), if any. */
  readonly parent: string | undefined;
  readonly kind: EntryKind;
  /** An assistant block's API message id: the blocks of one reply share it. */
  readonly messageId: string | undefined;
  /** Where the entry's line is in the file, in bytes. */
  readonly offset: number;
  /** Its length in bytes. */
  readonly length: number;
}

/** The index of a transcript: its entries by uuid, and the last entry of the main conversation (the leaf the CLI resumes). */
export interface TranscriptIndex {
  readonly entries: Map<string, IndexedEntry>;
  /** The uuid of the last shown entry of the main conversation in file order; absent for an empty conversation. */
  readonly leaf: string | undefined;
}

type Json = Record<string, unknown>;

const UUID_PATTERN = "[0-9a-fA-F-]{36}";
const PARENT = new RegExp(`^\\{"parentUuid":(?:"(${UUID_PATTERN})"|null)`);
const SIDECHAIN = /^\{"parentUuid":(?:"[^"]*"|null),"isSidechain":true/;

/** The kind of a parsed `user` or `assistant` entry. */
function kindOf(entry: Json): EntryKind {
  const message = entry.message as { role?: unknown; content?: unknown } | undefined;
  if (typeof message !== "object" || message === null) return "other";
  if (entry.type === "assistant" && message.role === "assistant") return "assistant";
  if (entry.type !== "user" || message.role !== "user" || entry.isMeta === true || entry.isCompactSummary === true) return "other";
  const content = message.content;
  if (typeof content === "string") return "prompt";
  if (!Array.isArray(content)) return "other";
  if (content.some((block) => (block as { type?: unknown } | null)?.type === "tool_result")) return "toolResult";
  return content.some((block) => (block as { type?: unknown } | null)?.type === "text") ? "prompt" : "other";
}

/**
 * Builds a transcript's index from its lines, one at a time ({@link TranscriptIndexer.add}): a
 * record per entry that has a `uuid`, not its content. Side chains (`isSidechain`: a subagent's
 * lines kept in the session's own file by older CLIs) are left out, and so are lines that are not
 * entries (queue operations, API request blobs, summaries).
 */
export class TranscriptIndexer {
  readonly #entries = new Map<string, IndexedEntry>();
  #leaf: string | undefined;

  /** Indexes one scanned line. */
  add(line: ScannedLine): void {
    if (line.oversized) return this.#addOversized(line.oversized, line);
    let entry: unknown;
    try {
      entry = JSON.parse(line.text!.toString("utf8"));
    } catch {
      return; // a torn or foreign line
    }
    if (typeof entry !== "object" || entry === null || Array.isArray(entry)) return;
    const json = entry as Json;
    if (typeof json.uuid !== "string" || json.isSidechain === true) return;
    const parent =
      typeof json.parentUuid === "string"
        ? json.parentUuid
        : typeof json.logicalParentUuid === "string"
          ? json.logicalParentUuid
          : undefined;
    const kind = json.type === "user" || json.type === "assistant" ? kindOf(json) : "other";
    const messageId = kind === "assistant" ? (json.message as { id?: unknown }).id : undefined;
    this.#put({
      uuid: json.uuid,
      parent,
      kind,
      messageId: typeof messageId === "string" ? messageId : undefined,
      offset: line.offset,
      length: line.length,
    });
  }

  /** The index of the lines added so far. */
  done(): TranscriptIndex {
    return { entries: this.#entries, leaf: this.#leaf };
  }

  /**
   * An entry too long to keep whole: linked from its head (the CLI writes `parentUuid` and
   * `isSidechain` first) and the `uuid` the scan found in it (after the message), never shown.
   */
  #addOversized(oversized: NonNullable<ScannedLine["oversized"]>, line: ScannedLine): void {
    const head = oversized.head.toString("latin1");
    const parent = PARENT.exec(head);
    if (!parent || oversized.uuid === undefined || SIDECHAIN.test(head)) return;
    this.#put({ uuid: oversized.uuid, parent: parent[1], kind: "other", messageId: undefined, offset: line.offset, length: line.length });
  }

  #put(entry: IndexedEntry): void {
    this.#entries.set(entry.uuid, entry);
    if (entry.kind !== "other") this.#leaf = entry.uuid;
  }
}

/**
 * The conversation that ends at `leaf`: its entries from the first on, following each entry's
 * parent (a branch the conversation left, by a rewind or an edit, is not on it). Stops at an
 * entry whose parent the transcript does not hold, and at a loop.
 */
export function chainTo(index: TranscriptIndex, leaf: string): IndexedEntry[] {
  const chain: IndexedEntry[] = [];
  const seen = new Set<string>();
  for (
    let at = index.entries.get(leaf);
    at !== undefined && !seen.has(at.uuid);
    at = at.parent === undefined ? undefined : index.entries.get(at.parent)
  ) {
    seen.add(at.uuid);
    chain.push(at);
  }
  return chain.reverse();
}

/** The entries of one message shown: a prompt, or a reply's blocks and the results of its tool calls. */
export interface MessageEntries {
  readonly role: "user" | "assistant";
  readonly entries: IndexedEntry[];
}

/**
 * The messages of a conversation's entries: a prompt is a user message; the blocks of one API
 * reply (one `message.id`) are an assistant message, and the tool results sent back after it join
 * it. Entries of kind `other` are not shown.
 */
export function groupMessages(chain: readonly IndexedEntry[]): MessageEntries[] {
  const messages: MessageEntries[] = [];
  for (const entry of chain) {
    const last = messages.at(-1);
    if (entry.kind === "prompt") messages.push({ role: "user", entries: [entry] });
    else if (entry.kind === "assistant") {
      const previous = last?.role === "assistant" ? last.entries.at(-1) : undefined;
      const sameReply = previous?.kind === "assistant" && entry.messageId !== undefined && previous.messageId === entry.messageId;
      if (sameReply) last!.entries.push(entry);
      else messages.push({ role: "assistant", entries: [entry] });
    } else if (entry.kind === "toolResult") {
      if (last?.role === "assistant") last.entries.push(entry);
      else messages.push({ role: "assistant", entries: [entry] });
    }
  }
  return messages;
}
