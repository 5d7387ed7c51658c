import { sep } from "node:path";
import { promisify } from "node:util";
import type { SessionFileSlice, SessionLocation, SessionTransfer } from "@adaptor/driver";
import { DriverError, ErrCode, errorCode } from "@adaptor/errors";
import {
  segmentSummaryAfter,
  type SegmentSummary,
  type SessionStateStore,
  type SessionStateWrite,
  type StoredSessionState,
} from "@adaptor/threadstore";
import { ThreadSessionError, type ThreadSessionFailure } from "../errors/thread-session-error.js";
import type { TurnLog } from "../thread/turn-log.js";
import {
  bytesOf,
  grewFrom,
  heldThrough,
  manifestFault,
  readFrom,
  readManifest,
  sha256,
  tailOf,
  TAIL_WINDOW,
  type SessionManifest,
  type SessionManifestFile,
} from "./session-manifest.js";
import { isVerified, markVerified } from "./verified-copies.js";

/** node:zlib, loaded with the first session file stored or restored (a plain run never needs it). */
let zlib: Promise<{ gzip: (data: Uint8Array) => Promise<Buffer>; gunzip: (data: Uint8Array) => Promise<Buffer> }> | undefined;
const loadZlib = () => (zlib ??= import("node:zlib").then(({ gzip, gunzip }) => ({ gzip: promisify(gzip), gunzip: promisify(gunzip) })));
const compress = async (data: Uint8Array): Promise<Buffer> => (await loadZlib()).gzip(data);
const decompress = async (data: Uint8Array): Promise<Buffer> => (await loadZlib()).gunzip(data);

/** Default most bytes (compressed) a thread's stored session state may hold: 64 MiB. */
export const DEFAULT_SESSION_STATE_LIMIT_BYTES = 64 * 1024 * 1024;

/** What restoring before a resume found. */
export type RestoreOutcome =
  /**
   * This host's CLI home already held exactly the stored files, or (a turn that may reuse this
   * host's live parked process, see {@link RestoreOptions.reuse}) the stored files followed by
   * what that process wrote since: left for it.
   */
  | "local"
  /** The stored files were written into this host's CLI home, whole. */
  | "restored"
  /**
   * This host's CLI home held an older copy (the stored files up to the end of an earlier stored
   * segment): only the later segments were read from the store and appended to it (and any file
   * that held more than its stored bytes was cut back to them).
   */
  | "appended"
  /**
   * This host's CLI home held the stored files followed by bytes no committed turn wrote (a turn
   * that failed here, or another writer): they were cut off, so the files are exactly the stored ones.
   */
  | "trimmed";

/** Options of {@link PortableSessions.restore}. */
export interface RestoreOptions {
  /** Cancels the reads and writes. */
  readonly signal?: AbortSignal | undefined;
  /**
   * The turn may run on the process this host parked after the record's last turn (it continues
   * the conversation where this process committed it). When the driver also reports a live process
   * parked on the session (`SessionTransfer.parked`), bytes after the stored ones are that
   * process's own and are left in place; otherwise they are cut off. Default false.
   */
  readonly reuse?: boolean | undefined;
}

/** What the export after a turn gives the commit. */
export type SessionCapture =
  /** The `sessionState` of the commit; `bytes`: what the record's segments hold after it. */
  | { readonly kind: "write"; readonly write: SessionStateWrite; readonly bytes: number }
  /**
   * Nothing to store for this turn: the driver found no files or could not read them
   * (`not_exported`: also a session file that is not a regular file while none is stored), or
   * they would go over the limit, or a file is longer than the driver reads (`too_large`: a
   * `DriverError` coded `RESOURCE_EXHAUSTED` from the export, its cause).
   */
  | { readonly kind: "skipped"; readonly reason: "not_exported" | "too_large"; readonly message: string; readonly cause?: unknown }
  /**
   * A stored file is gone, shorter, no longer begins with the stored bytes, or was replaced by
   * anything but a regular file of its own (a link: `cause`, the export's refusal): never stored.
   */
  | { readonly kind: "rewritten"; readonly file: string; readonly message: string; readonly cause?: unknown };

/**
 * Portable sessions of one thread run: the store's session-state capability and the driver's
 * session transfer together. Before a resume the stored files are restored into this host's CLI home
 * when it lacks them or holds other bytes; after a committed turn the driver's export becomes the
 * `sessionState` of `finalize`.
 *
 * Storage: each file is kept as gzip segments, each with the sha256 of its uncompressed bytes, and
 * the sha256 of the file's last 64 KiB. A file that still holds the stored length and the same last
 * 64 KiB at the same offset has grown: only its new tail is compressed, hashed and appended as one
 * more segment (the CLIs append to their session files, so a turn normally writes only its own
 * lines), and files new since the last turn are added whole. A stored file that is gone, shorter,
 * or differs there was rewritten, and is never stored silently (see {@link SessionCapture}).
 *
 * Trust: the stored bytes are the conversation's. Whatever follows them in a local copy is taken
 * as the CLI's own only while a live CLI process of this host owns the files: the one parked after
 * this process committed the record's last turn (`SessionTransfer.parked`), which a reusing turn
 * takes. Such a process legitimately writes between turns (a background task's end, its own
 * bookkeeping), and its lines are exported with the turn it serves next, as a turn's own lines are;
 * a writer that appends while it lives cannot be told from it, as during a turn. When no such
 * process is parked, or the turn will not reuse it (a spawn, a resume on another host or after a
 * restart, a process that idled out or died), whatever follows the stored bytes (a turn that
 * failed here, a process's exit lines, any other writer) is cut back to the stored length
 * (`appendSession` at that offset, which also ends a process still parked on it) before the CLI
 * starts, so it is never resumed or exported.
 *
 * Cost: with a driver that reads files from an offset (`exportSessionFrom`), a turn reads only
 * the bytes it added plus that window, and a restore on a host whose copy is the stored one reads
 * only the window. A copy that grew since this process last verified it (bytes past the stored
 * ones, cut or kept) is hashed whole against the stored segments once; the cut itself costs the
 * window plus the bytes past it. A host whose copy ends where an earlier stored segment ended, with
 * the same window there, gets only the later segments from the store, appended to its copy
 * (`appendSession`). Without those driver methods the files are read whole, with the same results.
 *
 * Integrity without reading history: each manifest records the `SegmentSummary` its write left
 * (count, bytes, checksum), computed from that write's segments alone; with a store that has
 * `summary`, {@link restore} compares it with the store's summary of the segments it holds, so a
 * loss behind counts that look whole fails the turn before the CLI continues.
 *
 * The window alone decides only for a local copy whose identity (`SessionFileSlice.identity`) this
 * process verified or read after its own turn, so nothing wrote it since; any other copy (edited in
 * place by another process, or found after a restart) is first hashed whole against every stored
 * segment once.
 */
export class PortableSessions {
  readonly #store: SessionStateStore;
  readonly #transfer: SessionTransfer;
  readonly #limitBytes: number;
  readonly #key: string;
  /**
   * The store's summary of a stored state whose manifest predates the summary check (so it names
   * none), taken when this turn's restore found it consistent with the state's count and bytes: the
   * base the commit's manifest adds its own segments to.
   */
  readonly #summaries = new WeakMap<StoredSessionState, SegmentSummary>();

  constructor(store: SessionStateStore, transfer: SessionTransfer, limitBytes: number, key: string) {
    this.#store = store;
    this.#transfer = transfer;
    this.#limitBytes = limitBytes;
    this.#key = key;
  }

  /** The stored state of record `recordId`, if the store has any. @throws the store's errors. */
  async stored(recordId: string, signal?: AbortSignal): Promise<StoredSessionState | undefined> {
    return this.#store.read(recordId, signal);
  }

  /**
   * Whether this host's CLI home holds the session through the checkpoint `location` names (its
   * `data`); the driver may wait a few seconds for a file that lacks the checkpoint's last entry.
   */
  async holdsCheckpoint(location: SessionLocation, signal?: AbortSignal): Promise<boolean> {
    try {
      return ((await this.#transfer.exportSession(location, signal)) ?? []).length > 0;
    } catch {
      signal?.throwIfAborted();
      return false;
    }
  }

  /**
   * Makes this host's CLI home hold record `recordId`'s stored session files (see the trust model
   * above for bytes after them, and {@link RestoreOptions.reuse}). First, with a store that has
   * `summary`, checks that the segments it holds add up to what the last write left.
   * @throws ThreadSessionError `damaged` (`ErrThreadSessionCorrupt`) when the stored state is not
   * this driver's format, names a path outside the CLI home (a file name or the session id
   * `location.resumeId` with a `..` part, absolute, a file named twice) or files the driver refuses
   * to place (its `TypeError`), lists a file's segments out of the order they were stored, does not
   * decode to what its manifest says (each segment's checksum and length, the file's length and last
   * window), or the store's summary of its segments differs from the manifest's (a segment lost,
   * shortened or reordered); all but the last found before anything is written. `restore_failed`
   * (`ErrThreadSessionUnavailable`) when the driver cannot write the files, its error as cause.
   */
  async restore(
    recordId: string,
    stored: StoredSessionState,
    location: SessionLocation,
    options: RestoreOptions = {},
  ): Promise<RestoreOutcome> {
    const { signal } = options;
    const manifest = readManifest(stored.manifest, this.#transfer.format);
    if (!manifest) throw this.#error("damaged", `the stored manifest is not one of this driver's format (${this.#transfer.format})`);
    // Before anything is read or written: nothing the store holds may name a path outside the CLI home.
    const fault = manifestFault(manifest, location.resumeId);
    if (fault) throw this.#error("damaged", `the stored manifest is not one this SDK wrote: ${fault}`);
    // Segments are numbered from 0 across files, and an append never drops a file: a store holding
    // fewer than the manifest names lost some (a store that keeps only the newest), even when this
    // host's copy is whole and no segment is read.
    const named = Math.max(-1, ...manifest.files.flatMap((file) => file.segments)) + 1;
    if (stored.segments < named)
      throw this.#error("damaged", `the store holds ${stored.segments} segments of record ${recordId}, and its manifest names ${named}`);
    await this.#checkSummary(recordId, stored, manifest, signal);
    // As the files are now: no waiting for the checkpoint's last entry, which an older copy lacks.
    const { data: _now, ...asTheyAre } = location;
    const stored_ = (name: string): SessionManifestFile | undefined => manifest.files.find((file) => file.name === name);
    const local = await this.#local(
      asTheyAre,
      (name) => {
        const file = stored_(name);
        return file ? readFrom(file) : Number.MAX_SAFE_INTEGER;
      },
      signal,
    );
    // Only the stored bytes are the conversation's: whatever follows them in a local copy is cut off
    // before the CLI starts, unless this host's live parked process wrote it and serves the turn.
    const sameNames =
      local !== undefined &&
      local.length === manifest.files.length &&
      manifest.files.every((file) => local.some((l) => l.name === file.name));
    // A copy this process has not verified since it was last written (another process edited it, or
    // this one restarted) is checked against every stored byte once, not only the tail window.
    if (sameNames && (await this.#verify(manifest, local, asTheyAre, signal))) {
      const owned = options.reuse === true && this.#transfer.parked?.(asTheyAre) === true;
      const completed = await this.#complete(recordId, manifest, local, asTheyAre, location, owned, signal);
      if (completed) return completed;
    }
    const segments = await this.#store.segments(recordId, signal);
    const files = [];
    for (const file of manifest.files) files.push({ name: file.name, content: await this.#decode(file, file.segments, segments) });
    try {
      await this.#transfer.importSession(location, files, signal);
    } catch (cause) {
      // The driver refuses names it does not place (a TypeError) before it writes anything: the
      // stored state is not one this driver exported, whichever host reads it.
      if (cause instanceof TypeError && !signal?.aborted)
        throw this.#error("damaged", "the stored session files are not ones this driver places", cause);
      throw this.#error("restore_failed", "the stored session files could not be written into this host's CLI home", cause);
    }
    return "restored";
  }

  /**
   * With a store that has `summary`: what the store's segments of `recordId` add up to must be what
   * the last write left (the manifest's `stored`; for a manifest of an earlier version, the state's
   * count and bytes), so a store that lost, shortened or reordered a segment while still reporting
   * the full count and length fails the turn here, before the CLI continues from a copy that hides
   * the loss. Costs one query of the store, whatever the history's size. Without `summary`, nothing.
   * @throws ThreadSessionError `damaged` on a mismatch; the store's errors as they are.
   */
  async #checkSummary(recordId: string, stored: StoredSessionState, manifest: SessionManifest, signal?: AbortSignal): Promise<void> {
    if (!this.#store.summary) return;
    const held = await this.#store.summary(recordId, signal);
    const expected = manifest.stored;
    const same = expected
      ? held.segments === expected.segments && held.bytes === expected.bytes && held.checksum === expected.checksum
      : held.segments === stored.segments && held.bytes === stored.bytes;
    if (!same) {
      const want = expected ?? { segments: stored.segments, bytes: stored.bytes };
      throw this.#error(
        "damaged",
        `the store's segments of record ${recordId} add up to ${JSON.stringify(held)}, and its last write left ${JSON.stringify(want)}: a stored segment was lost, shortened or reordered`,
      );
    }
    if (!expected) this.#summaries.set(stored, held);
  }

  /**
   * Whether every local file whose identity this process has not verified holds the stored bytes
   * (through the stored segment it ends with, for an older copy), read whole and checked against
   * each segment's hash; the ones that do are remembered as verified. Verified files are left to the
   * tail-window checks, so a warm turn reads no more than before. `false` sends the caller to
   * restore the stored files whole.
   */
  async #verify(
    manifest: SessionManifest,
    local: readonly SessionFileSlice[],
    asTheyAre: SessionLocation,
    signal?: AbortSignal,
  ): Promise<boolean> {
    const unverified = manifest.files.filter((file) => !isVerified(local.find((l) => l.name === file.name)?.identity));
    if (unverified.length === 0) return true;
    const whole = await this.#local(
      asTheyAre,
      (name) => (unverified.some((file) => file.name === name) ? 0 : Number.MAX_SAFE_INTEGER),
      signal,
    );
    for (const file of unverified) {
      const part = whole?.find((l) => l.name === file.name);
      if (!part) return false;
      // Up to where the copy ends: all of the stored file, or the stored segment it ends with.
      const count = part.bytes >= file.bytes ? file.segments.length : (file.ends?.findIndex((end) => end.bytes === part.bytes) ?? -1) + 1;
      if (count === 0 && file.bytes > 0) return false;
      if (!heldThrough(file, part, count)) return false;
    }
    for (const file of unverified) markVerified(whole?.find((l) => l.name === file.name)?.identity);
    return true;
  }

  /** This host's copy of the session's files, each from `from(name)` on (whole without `exportSessionFrom`); `undefined` when unreadable or absent. */
  async #local(
    location: SessionLocation,
    from: (name: string) => number,
    signal?: AbortSignal,
  ): Promise<readonly SessionFileSlice[] | undefined> {
    try {
      return await this.#export(location, from, signal);
    } catch {
      signal?.throwIfAborted();
      return undefined; // Unreadable here: written over.
    }
  }

  /** The driver's export of `location`, each file from `from(name)` on when the driver can, else whole. */
  async #export(
    location: SessionLocation,
    from: (name: string) => number,
    signal?: AbortSignal,
  ): Promise<readonly SessionFileSlice[] | undefined> {
    if (this.#transfer.exportSessionFrom) return this.#transfer.exportSessionFrom(location, from, signal);
    const files = await this.#transfer.exportSession(location, signal);
    return files?.map((file) => ({ name: file.name, bytes: file.content.byteLength, offset: 0, content: file.content }));
  }

  /**
   * Makes a local copy whose earlier bytes are the stored ones exactly the stored files: `local`
   * when every file already is (or, `owned`: this host's live parked process serves the turn, when
   * every file holds the stored bytes and more, the rest being that process's own); else files
   * longer than stored are cut back to the stored length (`trimmed`: the stored length and tail
   * window tell where the stored bytes end, so nothing is read or hashed beyond the window the
   * caller already read), and files that end where one of their stored segments ended (same length, same window before it) get the later segments alone,
   * read from the store, checked and appended (`appended`), all in one `appendSession`. `false`
   * when the copy is neither, the driver cannot append, or the append fails: the caller then
   * restores the files whole.
   * @throws ThreadSessionError `damaged` for a stored segment that does not decode to its checksum.
   */
  async #complete(
    recordId: string,
    manifest: SessionManifest,
    local: readonly SessionFileSlice[],
    asTheyAre: SessionLocation,
    location: SessionLocation,
    owned: boolean,
    signal?: AbortSignal,
  ): Promise<"local" | "appended" | "trimmed" | false> {
    // Per file to complete: its local length and the index (into the file's segments) of the first missing one.
    const missing: { file: SessionManifestFile; bytes: number; next: number }[] = [];
    // Files holding their stored bytes and more: cut back to the stored length.
    const longer: SessionManifestFile[] = [];
    for (const file of manifest.files) {
      const part = local.find((l) => l.name === file.name)!;
      if (grewFrom(file, part)) {
        if (part.bytes > file.bytes) longer.push(file);
        continue;
      }
      const next = file.ends ? file.ends.findIndex((end) => end.bytes === part.bytes) + 1 : 0;
      if (next === 0 || part.bytes === 0) return false;
      missing.push({ file, bytes: part.bytes, next });
    }
    if (missing.length === 0 && (longer.length === 0 || owned)) return "local";
    if (!this.#transfer.appendSession) return false;
    // The window before each local end: the same bytes as the stored file had there.
    const windows =
      missing.length === 0
        ? []
        : await this.#local(
            asTheyAre,
            (name) => {
              const m = missing.find((f) => f.file.name === name);
              return m ? m.bytes - Math.min(TAIL_WINDOW, m.bytes) : Number.MAX_SAFE_INTEGER;
            },
            signal,
          );
    for (const { file, bytes, next } of missing) {
      const part = windows?.find((l) => l.name === file.name);
      const window = part && part.bytes === bytes ? bytesOf(part, bytes - Math.min(TAIL_WINDOW, bytes), bytes) : undefined;
      if (!window || sha256(window) !== file.ends![next - 1]!.sha256) return false;
    }
    const slices: SessionFileSlice[] = longer.map((file) => ({
      name: file.name,
      bytes: file.bytes,
      offset: file.bytes,
      content: new Uint8Array(0),
    }));
    const first = Math.min(...missing.flatMap(({ file, next }) => file.segments.slice(next)));
    const later =
      missing.length === 0
        ? []
        : this.#store.segmentsFrom
          ? await this.#store.segmentsFrom(recordId, first, signal)
          : (await this.#store.segments(recordId, signal)).slice(first);
    for (const { file, bytes, next } of missing) {
      const indexes = file.segments.slice(next).map((index) => index - first);
      const content = await this.#decode({ ...file, bytes: file.bytes - bytes }, indexes, later, next);
      slices.push({ name: file.name, bytes: file.bytes, offset: bytes, content });
    }
    try {
      await this.#transfer.appendSession(location, slices, signal);
    } catch {
      signal?.throwIfAborted();
      return false;
    }
    // What the copy holds now: the stored length and window, as a kept local copy must.
    const now = await this.#local(
      asTheyAre,
      (name) => {
        const file = manifest.files.find((f) => f.name === name);
        return file ? readFrom(file) : Number.MAX_SAFE_INTEGER;
      },
      signal,
    );
    const held = manifest.files.every((file) => {
      const part = now?.find((l) => l.name === file.name);
      return part !== undefined && part.bytes === file.bytes && grewFrom(file, part);
    });
    if (!held) return false;
    for (const part of now ?? []) markVerified(part.identity);
    return missing.length > 0 ? "appended" : "trimmed";
  }

  /**
   * The content of stored `file` from its segment `skip` on (`indexes`: where those segments are in
   * `segments`), checked segment by segment; `file.bytes` is the length they must decode to.
   * @throws ThreadSessionError `damaged`.
   */
  async #decode(file: SessionManifestFile, indexes: readonly number[], segments: readonly Uint8Array[], skip = 0): Promise<Buffer> {
    const parts = await Promise.all(
      indexes.map(async (at, n) => {
        const i = skip + n;
        const index = file.segments[i]!;
        const segment = segments[at];
        if (!segment) throw this.#error("damaged", `stored session file ${file.name} misses segment ${index}`);
        let part: Buffer;
        try {
          part = await decompress(segment);
        } catch (cause) {
          throw this.#error("damaged", `stored session file ${file.name}: segment ${index} is not valid gzip`, cause);
        }
        const expected = file.segmentSha256?.[i];
        if (expected !== undefined && sha256(part) !== expected)
          throw this.#error("damaged", `stored session file ${file.name}: segment ${index} does not match its checksum`);
        // Where each segment ends is kept with it: a segment moved to another place is found here.
        const end = file.ends?.[i]?.bytes;
        if (end !== undefined && part.byteLength !== end - (i === 0 ? 0 : file.ends![i - 1]!.bytes))
          throw this.#error("damaged", `stored session file ${file.name}: segment ${index} is not as long as where it ends says`);
        return part;
      }),
    );
    const content = Buffer.concat(parts);
    if (content.byteLength !== file.bytes || (skip === 0 && file.sha256 !== undefined && sha256(content) !== file.sha256))
      throw this.#error("damaged", `stored session file ${file.name} does not match its checksum`);
    // The whole file must end with the window it ended with when stored: segments that each match
    // their own checksum but were put in another order do not (a completed copy is checked after its append).
    if (
      skip === 0 &&
      file.tail &&
      (file.tail.bytes > file.bytes || sha256(content.subarray(file.bytes - file.tail.bytes)) !== file.tail.sha256)
    )
      throw this.#error("damaged", `stored session file ${file.name} does not end with the bytes it ended with when stored`);
    return content;
  }

  /**
   * What to store with the commit of a turn: the driver's export of the session at its new
   * checkpoint, appended to `previous` (the record's stored state) where every stored file only
   * grew. Hashes and compresses only the bytes the turn added (plus one 64 KiB window per file),
   * unless `previous` was written by an earlier version (then once the whole file). `turns`: the
   * conversation's committed turns through this one, kept in the manifest.
   */
  async capture(
    previous: StoredSessionState | undefined,
    location: SessionLocation,
    signal?: AbortSignal,
    turns?: TurnLog,
  ): Promise<SessionCapture> {
    const before = previous && readManifest(previous.manifest, this.#transfer.format);
    // Manifests of an earlier version keep no per-segment hashes: those are replaced once.
    const append = before !== undefined && before.files.every((file) => file.segmentSha256 !== undefined);
    let files: readonly SessionFileSlice[];
    try {
      files =
        (await this.#export(
          location,
          (name) => {
            const old = before?.files.find((file) => file.name === name);
            return old && append ? readFrom(old) : 0;
          },
          signal,
        )) ?? [];
    } catch (cause) {
      signal?.throwIfAborted();
      // A session file over the length the driver reads (`SESSION_FILE_LIMIT_BYTES` of the driver kit) is too large to keep.
      if (errorCode(cause) === ErrCode.ResourceExhausted)
        return { kind: "skipped", reason: "too_large", message: "a session file is over the length the driver reads", cause };
      // A stored file's path holding a link, FIFO or folder now (the export refuses it: INVALID,
      // IS_DIRECTORY) was replaced during the turn: the CLI wrote the turn through it, if anywhere.
      const refused = errorCode(cause);
      const device = cause instanceof DriverError ? cause.device.split(sep).join("/") : "";
      const stored = before?.files.find((file) => device.endsWith(`/${file.name}`)) ?? before?.files[0];
      if (stored && (refused === ErrCode.Invalid || refused === ErrCode.IsDirectory))
        return {
          kind: "rewritten",
          file: stored.name,
          message: `a session file was replaced by what is not a regular file of its own (${cause instanceof Error ? cause.message : String(cause)})`,
          cause,
        };
      return { kind: "skipped", reason: "not_exported", message: "the session files could not be exported", cause };
    }
    // Files the last turn stored and this one removed count as rewritten, not as never written.
    if (files.length === 0 && !before?.files.length)
      return { kind: "skipped", reason: "not_exported", message: `no session files of ${location.resumeId} on this host` };
    for (const old of before?.files ?? []) {
      const now = files.find((file) => file.name === old.name);
      if (!now || !grewFrom(old, now)) {
        const what = now ? `is now ${now.bytes} bytes and does not begin with them` : "is gone";
        return { kind: "rewritten", file: old.name, message: `session file ${old.name} held ${old.bytes} bytes when stored and ${what}` };
      }
    }
    const segments: Uint8Array[] = [];
    let next = append ? previous!.segments : 0;
    const manifestFiles: SessionManifestFile[] = [];
    for (const file of files) {
      const old = append ? before.files.find((f) => f.name === file.name) : undefined;
      const tail = bytesOf(file, old?.bytes ?? 0, file.bytes);
      const window = tailOf(file);
      // A driver's slice always covers what was asked for; one that does not is not stored from.
      if (!tail || !window)
        return { kind: "skipped", reason: "not_exported", message: `the export of ${file.name} misses bytes it was asked for` };
      const indexes = [...(old?.segments ?? [])];
      const hashes = [...(old?.segmentSha256 ?? [])];
      // Segment ends are known for files stored whole since they were kept; older entries lack them.
      let ends = old ? old.ends && [...old.ends] : [];
      if (tail.byteLength > 0 || !old) {
        segments.push(await compress(tail));
        indexes.push(next++);
        hashes.push(sha256(tail));
        ends = ends && [...ends, { bytes: file.bytes, sha256: window.sha256 }];
      }
      manifestFiles.push({
        name: file.name,
        bytes: file.bytes,
        segments: indexes,
        segmentSha256: hashes,
        tail: window,
        ...(ends ? { ends } : {}),
      });
    }
    const bytes = (append ? previous!.bytes : 0) + segments.reduce((sum, s) => sum + s.byteLength, 0);
    if (bytes > this.#limitBytes) {
      return {
        kind: "skipped",
        reason: "too_large",
        message: `session state of ${bytes} bytes is over the limit of ${this.#limitBytes}`,
      };
    }
    // What the record's segments add up to after this write: from the new segments alone, on top of
    // what the previous write left (unknown for a manifest of an earlier version not checked this turn).
    const base = append ? (before.stored ?? this.#summaries.get(previous!)) : undefined;
    const summary = append && !base ? undefined : segmentSummaryAfter(base, { mode: append ? "append" : "replace", segments });
    const manifest: SessionManifest = {
      v: 1,
      format: this.#transfer.format,
      compression: "gzip",
      files: manifestFiles,
      ...(summary ? { stored: summary } : {}),
      ...(turns ? { turns } : {}),
    };
    // The copy as stored now: its earlier bytes were checked when the turn began, the rest is stored.
    for (const file of files) markVerified(file.identity);
    return { kind: "write", write: { mode: append ? "append" : "replace", segments, manifest, limitBytes: this.#limitBytes }, bytes };
  }

  /** A {@link ThreadSessionError} of this thread. */
  #error(reason: ThreadSessionFailure, message: string, cause?: unknown): ThreadSessionError {
    return new ThreadSessionError({
      key: this.#key,
      reason,
      message: `thread ${this.#key}: session state: ${message}`,
      ...(cause !== undefined ? { cause } : {}),
    });
  }
}
