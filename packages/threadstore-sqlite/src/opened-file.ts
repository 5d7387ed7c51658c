import { realpathSync, statSync } from "node:fs";
import { resolve } from "node:path";
import type Database from "better-sqlite3";

/** A file's identity: its device and inode. */
interface Identity {
  readonly dev: bigint;
  readonly ino: bigint;
}

/**
 * The database file a store opened (device and inode), to tell when its path no longer names it:
 * the file was deleted, or replaced by another one (renamed over it, or deleted and created again),
 * or given a second name (a hard link: a connection through that name keeps a `-wal` and `-shm` of
 * its own, so two connections would each see only their own commits). The same for its `-wal` and
 * `-shm` files once {@link watchJournal} recorded them: a connection opened after either was deleted
 * or replaced writes to a new one, which this store's connection never reads.
 * SQLite keeps working on the open files, so writes would land where no other process sees them.
 */
export class OpenedFile {
  /** The absolute path the store opened. */
  readonly path: string;
  readonly #file: Identity;
  /** The `-wal` and `-shm` files (SQLite names them after the file's real path) and their identity. */
  #journal: { readonly path: string; readonly suffix: string; readonly identity: Identity }[] = [];

  private constructor(path: string, file: Identity) {
    this.path = path;
    this.#file = file;
  }

  /**
   * The file `db` has open, or `undefined` for an in-memory or temporary database (no path to watch).
   * @throws Error when the file has more than one name (hard links): it must be opened by one name.
   */
  static of(db: Database.Database): OpenedFile | undefined {
    if (db.memory || db.name === "" || db.name.startsWith("file:")) return undefined;
    const path = resolve(db.name);
    const stats = statSync(path, { bigint: true });
    if (stats.nlink > 1n) {
      throw new Error(
        `the database file ${path} has ${stats.nlink} names (hard links): a connection through another name would keep a -wal of its own and miss this one's commits; open a file that has one name`,
      );
    }
    return new OpenedFile(path, { dev: stats.dev, ino: stats.ino });
  }

  /**
   * Records the identity of the `-wal` and `-shm` files as they are now (once the database is in
   * WAL mode and has been written); either one missing is not watched.
   */
  watchJournal(): void {
    const base = realpathSync(this.path);
    this.#journal = [];
    for (const suffix of ["-wal", "-shm"]) {
      const stats = statSync(base + suffix, { bigint: true, throwIfNoEntry: false });
      if (stats) this.#journal.push({ path: base + suffix, suffix, identity: { dev: stats.dev, ino: stats.ino } });
    }
  }

  /**
   * `undefined` while the path still names the opened file, by that name only, and its `-wal` and
   * `-shm` are the ones recorded; else what changed (`"was deleted"`, `"was replaced by another
   * file"`, `"was given a second name (a hard link; 2 names)"`, `"had its -wal file deleted"`, ...).
   * One `stat` call per file. @throws the `stat` error other than a missing file.
   */
  change(): string | undefined {
    const now = statSync(this.path, { bigint: true, throwIfNoEntry: false });
    if (now === undefined) return "was deleted";
    if (!same(now, this.#file)) return "was replaced by another file";
    if (now.nlink > 1n) return secondName(now.nlink);
    for (const { path, suffix, identity } of this.#journal) {
      const file = statSync(path, { bigint: true, throwIfNoEntry: false });
      if (file === undefined) return `had its ${suffix} file deleted`;
      if (!same(file, identity)) return `had its ${suffix} file replaced by another file`;
    }
    return undefined;
  }
}

function same(a: Identity, b: Identity): boolean {
  return a.dev === b.dev && a.ino === b.ino;
}

function secondName(nlink: bigint): string {
  return `was given a second name (a hard link; ${nlink} names)`;
}
