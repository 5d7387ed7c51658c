import { statSync } from "node:fs";
import { resolve } from "node:path";
import type Database from "better-sqlite3";

/**
 * The database file a store opened (device and inode), to tell when its path no longer names it:
 * the file was deleted, or replaced by another one (renamed over it, or deleted and created again).
 * SQLite keeps working on the open file, so writes would land in a file no other process sees.
 */
export class OpenedFile {
  /** The absolute path the store opened. */
  readonly path: string;
  readonly #dev: bigint;
  readonly #ino: bigint;

  private constructor(path: string, dev: bigint, ino: bigint) {
    this.path = path;
    this.#dev = dev;
    this.#ino = ino;
  }

  /** The file `db` has open, or `undefined` for an in-memory or temporary database (no path to watch). */
  static of(db: Database.Database): OpenedFile | undefined {
    if (db.memory || db.name === "" || db.name.startsWith("file:")) return undefined;
    const path = resolve(db.name);
    const stats = statSync(path, { bigint: true });
    return new OpenedFile(path, stats.dev, stats.ino);
  }

  /**
   * `undefined` while the path still names the opened file; else how it changed (`"deleted"`,
   * `"replaced by another file"`). One `stat` call. @throws the `stat` error other than a missing file.
   */
  change(): string | undefined {
    const now = statSync(this.path, { bigint: true, throwIfNoEntry: false });
    if (now === undefined) return "deleted";
    return now.dev === this.#dev && now.ino === this.#ino ? undefined : "replaced by another file";
  }
}
