import { DriverError, ErrCode } from "@adaptor/errors";
import type { ScannedLine } from "./transcript-lines.js";

/** What an entry of the transcript is, for the conversation shown. */
export type EntryKind =
  /** A prompt of the user (typed, or sent by an app): its text, images or both. */
  | "prompt"
  /** One content block of an assistant reply (the CLI writes one entry per block). */
  | "assistant"
  /** The results of tool calls the CLI sent the model back (a `user` entry of `tool_result` blocks only). */
  | "toolResult"
  /** Anything else that links the chain (attachments, system lines, meta prompts, an entry too long to read): not shown. */
  | "other";

/** An entry of the index, as {@link TranscriptIndex.entry} gives it: where it is and how it links, never its content. */
export interface IndexedEntry {
  readonly uuid: string;
  readonly kind: EntryKind;
  /** Where the entry's line is in the file, in bytes. */
  readonly offset: number;
  /** Its length in bytes. */
  readonly length: number;
}

/**
 * The most distinct uuids (entries, and parents they name) one transcript's index holds: past it
 * the read is refused (`RESOURCE_EXHAUSTED`). 4,000,000: the index keeps about 60 bytes per uuid
 * (its 128 bits and hash slot, its parent's number, kind, reply and place in the file, in typed
 * arrays), under 250 MB at the cap; the CLI writes a few entries per turn.
 */
export const MAX_TRANSCRIPT_ENTRIES = 4_000_000;

const KINDS: readonly (EntryKind | undefined)[] = [undefined, "prompt", "assistant", "toolResult", "other"];
const KIND_CODE: Readonly<Record<EntryKind, number>> = { prompt: 1, assistant: 2, toolResult: 3, other: 4 };
/** Kind code of a uuid named only as a parent: no entry of it was read. */
const ABSENT = 0;
const NONE = -1;
/** Replies whose `message.id` the index remembers, the last seen (see `TranscriptIndex`). */
const RECENT_REPLIES = 256;
/** The form the CLI writes a uuid in, which the index keeps as 128 bits. */
const CANONICAL_UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** A hash of a uuid's four words. */
function hashWords(w0: number, w1: number, w2: number, w3: number): number {
  let h = Math.imul(w0 ^ 0x9e3779b9, 0x85ebca6b);
  h = Math.imul(h ^ w1 ^ (h >>> 13), 0xc2b2ae35);
  h = Math.imul(h ^ w2 ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ w3 ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/**
 * The index of a transcript, compact so a transcript of a million entries fits a small heap: every
 * uuid seen (an entry's own, or one named as a parent) is interned as a number (a uuid in the
 * CLI's lowercase form kept as its 128 bits in a typed array, found through an open-addressing
 * hash table; any other string, in a map), and per number typed arrays keep its parent's number,
 * its kind (0: no entry of it), its reply's number (a `message.id` seen among the last 256
 * replies keeps its number) and its line's offset and length. Built by {@link TranscriptIndexer}.
 */
export class TranscriptIndex {
  /** Number of uuids held; each has a number below it. */
  #count = 0;
  /** A canonical uuid's 128 bits, four words per number. */
  #words = new Uint32Array(4 * 1024);
  /** Open-addressing hash table of the canonical uuids: number + 1 per slot, 0 when free; a power of two long, at most half full. */
  #table = new Int32Array(2048);
  /** A uuid that is not in the canonical lowercase form, by its string (the CLI writes none such; a hand-made transcript may). */
  readonly #others = new Map<string, number>();
  readonly #otherUuids = new Map<number, string>();
  /** The numbers of the {@link RECENT_REPLIES} replies seen last, by `message.id`. */
  readonly #replies = new Map<string, number>();
  #nextReply = 0;
  #parent = new Int32Array(1024);
  #kind = new Uint8Array(1024);
  #reply = new Int32Array(1024);
  #offset = new Float64Array(1024);
  #length = new Float64Array(1024);
  /** The number of the last shown entry of the main conversation in file order, or {@link NONE}. */
  #leaf = NONE;
  readonly #maxEntries: number;

  /** @param maxEntries - the most distinct uuids held; default {@link MAX_TRANSCRIPT_ENTRIES}. */
  constructor(maxEntries = MAX_TRANSCRIPT_ENTRIES) {
    this.#maxEntries = maxEntries;
  }

  /** The uuid of the last shown entry of the main conversation in file order; absent for an empty conversation. */
  get leaf(): string | undefined {
    return this.#leaf === NONE ? undefined : this.#uuidOf(this.#leaf);
  }

  /** Number of distinct uuids held (entries, and parents named by them). */
  get size(): number {
    return this.#count;
  }

  /** The number of entry `uuid`, if the transcript holds an entry of it. */
  idOf(uuid: string): number | undefined {
    const id = this.#find(uuid, false);
    return id !== undefined && this.#kind[id] !== ABSENT ? id : undefined;
  }

  /** Entry number `id` (one {@link idOf} or {@link chainTo} gave). */
  entry(id: number): IndexedEntry {
    return { uuid: this.#uuidOf(id), kind: KINDS[this.#kind[id]!]!, offset: this.#offset[id]!, length: this.#length[id]! };
  }

  /** The kind of entry number `id`. */
  kindOf(id: number): EntryKind {
    return KINDS[this.#kind[id]!]!;
  }

  /** The interned `message.id` of assistant entry `id`, or -1. */
  replyOf(id: number): number {
    return this.#reply[id]!;
  }

  /** The parent of entry `id` when the transcript holds an entry of it, else `undefined`. */
  parentOf(id: number): number | undefined {
    const parent = this.#parent[id]!;
    return parent !== NONE && this.#kind[parent] !== ABSENT ? parent : undefined;
  }

  /**
   * Records an entry (a later entry of the same uuid replaces it).
   * @throws DriverError `RESOURCE_EXHAUSTED` past the index's most uuids.
   */
  put(uuid: string, parent: string | undefined, kind: EntryKind, messageId: string | undefined, offset: number, length: number): void {
    const id = this.#intern(uuid);
    this.#parent[id] = parent === undefined ? NONE : this.#intern(parent);
    this.#kind[id] = KIND_CODE[kind];
    this.#reply[id] = messageId === undefined ? NONE : this.#replyId(messageId);
    this.#offset[id] = offset;
    this.#length[id] = length;
    if (kind !== "other") this.#leaf = id;
  }

  /**
   * The number of reply `messageId`: the one it had when it is among the replies seen last (the
   * CLI writes a reply's blocks one after the other), else a new one, so the index keeps no
   * `message.id` past the last {@link RECENT_REPLIES}.
   */
  #replyId(messageId: string): number {
    let id = this.#replies.get(messageId);
    if (id !== undefined) return id;
    id = this.#nextReply++;
    this.#replies.set(messageId, id);
    if (this.#replies.size > RECENT_REPLIES) this.#replies.delete(this.#replies.keys().next().value!);
    return id;
  }

  #intern(uuid: string): number {
    return this.#find(uuid, true)!;
  }

  /** The number of `uuid`; a new one when `create` (else `undefined` for a uuid not held). */
  #find(uuid: string, create: boolean): number | undefined {
    if (!CANONICAL_UUID.test(uuid)) {
      const known = this.#others.get(uuid);
      if (known !== undefined || !create) return known;
      const id = this.#add();
      this.#others.set(uuid, id);
      this.#otherUuids.set(id, uuid);
      return id;
    }
    const w0 = parseInt(uuid.slice(0, 8), 16);
    const w1 = parseInt(uuid.slice(9, 13) + uuid.slice(14, 18), 16);
    const w2 = parseInt(uuid.slice(19, 23) + uuid.slice(24, 28), 16);
    const w3 = parseInt(uuid.slice(28, 36), 16);
    const mask = this.#table.length - 1;
    let slot = hashWords(w0, w1, w2, w3) & mask;
    for (; this.#table[slot] !== 0; slot = (slot + 1) & mask) {
      const id = this.#table[slot]! - 1;
      const at = id * 4;
      const words = this.#words;
      if (words[at] === w0 && words[at + 1] === w1 && words[at + 2] === w2 && words[at + 3] === w3) return id;
    }
    if (!create) return undefined;
    const id = this.#add();
    this.#words.set([w0, w1, w2, w3], id * 4);
    if ((this.#count - this.#others.size) * 2 > this.#table.length) this.#rehash();
    else this.#table[slot] = id + 1;
    return id;
  }

  /** A new number, with no parent, entry or reply yet. */
  #add(): number {
    const id = this.#count;
    if (id >= this.#maxEntries)
      throw new DriverError({
        op: "read claude session messages",
        device: "claude",
        code: ErrCode.ResourceExhausted,
        cause: `the transcript holds more than ${this.#maxEntries} entries (MAX_TRANSCRIPT_ENTRIES); it is not read`,
      });
    if (id === this.#kind.length) this.#grow();
    this.#count += 1;
    this.#parent[id] = NONE;
    this.#kind[id] = ABSENT;
    this.#reply[id] = NONE;
    return id;
  }

  /** Doubles the hash table and places every canonical uuid in it again. */
  #rehash(): void {
    const table = new Int32Array(this.#table.length * 2);
    const mask = table.length - 1;
    const words = this.#words;
    for (let id = 0; id < this.#count; id++) {
      if (this.#otherUuids.has(id)) continue;
      const at = id * 4;
      let slot = hashWords(words[at]!, words[at + 1]!, words[at + 2]!, words[at + 3]!) & mask;
      while (table[slot] !== 0) slot = (slot + 1) & mask;
      table[slot] = id + 1;
    }
    this.#table = table;
  }

  #uuidOf(id: number): string {
    const other = this.#otherUuids.get(id);
    if (other !== undefined) return other;
    const at = id * 4;
    const [a, b, c, d] = [0, 1, 2, 3].map((i) => this.#words[at + i]!.toString(16).padStart(8, "0")) as [string, string, string, string];
    return `${a}-${b.slice(0, 4)}-${b.slice(4)}-${c.slice(0, 4)}-${c.slice(4)}${d}`;
  }

  #grow(): void {
    const size = Math.max(this.#kind.length + 1, Math.min(this.#kind.length * 2, this.#maxEntries));
    const grown = <T extends Int32Array | Uint8Array | Float64Array>(old: T, make: new (n: number) => T): T => {
      const next = new make(size);
      next.set(old);
      return next;
    };
    this.#parent = grown(this.#parent, Int32Array);
    this.#kind = grown(this.#kind, Uint8Array);
    this.#reply = grown(this.#reply, Int32Array);
    this.#offset = grown(this.#offset, Float64Array);
    this.#length = grown(this.#length, Float64Array);
    const words = new Uint32Array(size * 4);
    words.set(this.#words);
    this.#words = words;
  }
}

/** `text` as a string of its own, so it does not keep the larger string a regular expression found it in. */
function copied(text: string): string {
  return Buffer.from(text, "utf8").toString("utf8");
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
  return content.some((block) => {
    const type = (block as { type?: unknown } | null)?.type;
    return type === "text" || type === "image";
  })
    ? "prompt"
    : "other";
}

/**
 * Builds a transcript's index from its lines, one at a time ({@link TranscriptIndexer.add}): a
 * record per entry that has a `uuid`, not its content. Side chains (`isSidechain`: a subagent's
 * lines kept in the session's own file by older CLIs) are left out, and so are lines that are not
 * entries (queue operations, API request blobs, summaries).
 */
export class TranscriptIndexer {
  readonly #index: TranscriptIndex;

  /** @param maxEntries - the most distinct uuids the index holds; default {@link MAX_TRANSCRIPT_ENTRIES}. */
  constructor(maxEntries = MAX_TRANSCRIPT_ENTRIES) {
    this.#index = new TranscriptIndex(maxEntries);
  }

  /**
   * Indexes one scanned line.
   * @throws DriverError `RESOURCE_EXHAUSTED` past the index's most uuids.
   */
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
    this.#index.put(json.uuid, parent, kind, typeof messageId === "string" ? messageId : undefined, line.offset, line.length);
  }

  /** The index of the lines added so far. */
  done(): TranscriptIndex {
    return this.#index;
  }

  /**
   * An entry too long to keep whole: linked from its head (the CLI writes `parentUuid` and
   * `isSidechain` first) and the `uuid` the scan found in it (after the message), never shown.
   */
  #addOversized(oversized: NonNullable<ScannedLine["oversized"]>, line: ScannedLine): void {
    const head = oversized.head.toString("latin1");
    const parent = PARENT.exec(head);
    if (!parent || oversized.uuid === undefined || SIDECHAIN.test(head)) return;
    const parentUuid = parent[1] === undefined ? undefined : copied(parent[1]);
    this.#index.put(copied(oversized.uuid), parentUuid, "other", undefined, line.offset, line.length);
  }
}

/**
 * The conversation that ends at entry `leaf`: its entries' numbers from the first on, following
 * each entry's parent (a branch the conversation left, by a rewind or an edit, is not on it).
 * Stops at an entry whose parent the transcript does not hold, and at a loop.
 */
export function chainTo(index: TranscriptIndex, leaf: string): Int32Array {
  const chain: number[] = [];
  const seen = new Uint8Array(index.size);
  for (let at = index.idOf(leaf); at !== undefined && seen[at] === 0; at = index.parentOf(at)) {
    seen[at] = 1;
    chain.push(at);
  }
  return Int32Array.from(chain.reverse());
}

/**
 * The messages shown of a conversation (its chain of entry numbers): a prompt is a user message;
 * the blocks of one API reply (one `message.id`) are an assistant message, and the tool results
 * sent back after it join it. Entries of kind `other` are not shown. Kept as where each message
 * begins in the chain: message `i` is the shown entries of chain positions `[start(i), start(i + 1))`.
 */
export class ConversationMessages {
  readonly #starts: Int32Array;
  readonly #chain: Int32Array;
  readonly #index: TranscriptIndex;
  /** Number of messages. */
  readonly count: number;

  constructor(index: TranscriptIndex, chain: Int32Array) {
    this.#index = index;
    this.#chain = chain;
    const starts: number[] = [];
    let role: "user" | "assistant" | undefined;
    let previous = -1; // the chain position of the last shown entry
    for (let at = 0; at < chain.length; at++) {
      const id = chain[at]!;
      const kind = index.kindOf(id);
      if (kind === "other") continue;
      if (kind === "prompt") {
        starts.push(at);
        role = "user";
      } else if (kind === "assistant") {
        const last = role === "assistant" && previous >= 0 ? chain[previous]! : undefined;
        const reply = index.replyOf(id);
        const sameReply = last !== undefined && index.kindOf(last) === "assistant" && reply !== -1 && index.replyOf(last) === reply;
        if (!sameReply) starts.push(at);
        role = "assistant";
      } else if (role !== "assistant") {
        starts.push(at);
        role = "assistant";
      }
      previous = at;
    }
    starts.push(chain.length);
    this.#starts = Int32Array.from(starts);
    this.count = starts.length - 1;
  }

  /** The role of message `i`. */
  role(i: number): "user" | "assistant" {
    return this.#index.kindOf(this.#chain[this.#starts[i]!]!) === "prompt" ? "user" : "assistant";
  }

  /** The shown entries of message `i`, in order. */
  entries(i: number): IndexedEntry[] {
    const entries: IndexedEntry[] = [];
    for (let at = this.#starts[i]!; at < this.#starts[i + 1]!; at++) {
      const id = this.#chain[at]!;
      if (this.#index.kindOf(id) !== "other") entries.push(this.#index.entry(id));
    }
    return entries;
  }
}
