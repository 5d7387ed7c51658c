import { createHash, randomUUID } from "node:crypto";
import type { SessionFile, SessionFileSlice, SessionLocation, SessionTransfer } from "@adaptor/driver";
import type { ThreadRecordDraft } from "@adaptor/threadstore";

/** A host's CLI home as a map of file name → bytes, exported and imported whole. */
export class FakeHome implements SessionTransfer {
  readonly format: string = "fake/v1";
  files = new Map<string, Buffer>();
  imports = 0;
  async exportSession(_location: SessionLocation): Promise<readonly SessionFile[] | undefined> {
    if (this.files.size === 0) return undefined;
    return [...this.files].map(([name, content]) => ({ name, content }));
  }
  async importSession(_location: SessionLocation, files: readonly SessionFile[]): Promise<void> {
    this.imports++;
    this.files = new Map(files.map((f) => [f.name, Buffer.from(f.content)]));
  }
}

/**
 * A {@link FakeHome} that also reads files from an offset and completes older copies, as the
 * Claude and Codex transfers do; it counts the bytes it hands out and the appends. A slice's
 * identity is this home's own (another home, like another host or process, never shares it) and
 * its content's: any change to a file gives another.
 */
export class SliceHome extends FakeHome {
  readonly #home = randomUUID();
  /** Bytes of file content returned by exports (whole or from an offset). */
  bytesRead = 0;
  appends: SessionFileSlice[][] = [];
  /** What a live process ending at the append adds to each file first (a CLI writing on exit). */
  onEnd: Buffer | undefined;
  /** Whether a live process is parked on the session (`SessionTransfer.parked`); an append ends it. */
  parkedProcess = false;
  parked(_location: SessionLocation): boolean {
    return this.parkedProcess;
  }
  override async exportSession(location: SessionLocation): Promise<readonly SessionFile[] | undefined> {
    const files = await super.exportSession(location);
    this.bytesRead += (files ?? []).reduce((sum, f) => sum + f.content.byteLength, 0);
    return files;
  }
  async exportSessionFrom(_location: SessionLocation, from: (name: string) => number): Promise<readonly SessionFileSlice[] | undefined> {
    if (this.files.size === 0) return undefined;
    return [...this.files].map(([name, content]) => {
      const offset = Math.min(from(name), content.byteLength);
      this.bytesRead += content.byteLength - offset;
      const identity = `${this.#home}:${name}:${createHash("sha256").update(content).digest("hex")}`;
      return { name, bytes: content.byteLength, offset, content: content.subarray(offset), identity };
    });
  }
  async appendSession(_location: SessionLocation, slices: readonly SessionFileSlice[]): Promise<void> {
    this.parkedProcess = false;
    if (this.onEnd) for (const [name, content] of this.files) this.files.set(name, Buffer.concat([content, this.onEnd]));
    for (const slice of slices) {
      const now = this.files.get(slice.name);
      if (now === undefined || now.byteLength < slice.offset) throw new Error(`${slice.name} is shorter than ${slice.offset} bytes`);
    }
    this.appends.push([...slices]);
    for (const slice of slices) {
      this.files.set(slice.name, Buffer.concat([this.files.get(slice.name)!.subarray(0, slice.offset), slice.content]));
    }
  }
}

/** The record `rec-1` (key `k`, resume id `s-1`) the session-state tests commit with. */
export function sessionRecord(): ThreadRecordDraft {
  const now = new Date();
  return {
    id: "rec-1",
    key: "k",
    status: "active",
    driverType: "fake",
    identity: "",
    fingerprint: "f",
    codec: "json/v1",
    checkpoint: { resumeId: "s-1" },
    createdAt: now,
    updatedAt: now,
  };
}
