/** One file of a CLI session as a driver exports it: a driver-chosen logical name and the exact bytes. */
export interface SessionFile {
  /** Logical name (never a host path), e.g. `"transcript.jsonl"`; unique within one export. */
  readonly name: string;
  /** The file's bytes. */
  readonly content: Uint8Array;
}

/**
 * Part of one session file as it is on this host: its length now and its bytes from `offset` on
 * (what {@link SessionTransfer.exportSessionFrom} reads, and what {@link SessionTransfer.appendSession} writes).
 */
export interface SessionFileSlice {
  /** Logical name, as in {@link SessionFile}. */
  readonly name: string;
  /** The file's whole length in bytes. */
  readonly bytes: number;
  /** Where `content` begins in the file, in bytes (at most `bytes`). */
  readonly offset: number;
  /** The file's bytes from `offset` to `bytes`. */
  readonly content: Uint8Array;
  /**
   * Optional: the file's identity when read, an opaque string that changes with any write to the
   * file or a new file at its path (e.g. device, inode, size, modification and change times in ns).
   * The SDK checks a copy whose identity it has not verified or written itself against every stored
   * byte once; a slice without one is checked that way every time.
   */
  readonly identity?: string;
}

/** Which session on which host: the conversation id and the launch inputs that decide where its files live. */
export interface SessionLocation {
  /** The id the CLI resumes by (the checkpoint's `resumeId`). */
  readonly resumeId: string;
  /** The checkpoint's `data`, as the driver returned it. */
  readonly data?: unknown;
  /** Working directory the CLI runs in on this host. */
  readonly cwd?: string;
  /** The run's extra environment (it may name the CLI's home, e.g. `CLAUDE_CONFIG_DIR`, `CODEX_HOME`). */
  readonly env?: Readonly<Record<string, string>>;
}

/**
 * Moves a CLI's session state between hosts (the optional `Driver.sessions`): after a committed
 * turn the SDK exports the session's files and keeps them in a thread store that has the
 * session-state capability; before a resume on a host whose CLI home lacks them (or holds other
 * bytes), it imports them where this host's CLI looks for them, so the CLI resumes as if it had run
 * there.
 */
export interface SessionTransfer {
  /** Names the export layout, e.g. `"claude-session/v1"`; an import refuses files of another format. */
  readonly format: string;
  /**
   * Reads the session's files from this host's CLI home, complete through the checkpoint in
   * `location.data`. Resolves `undefined` when this host has no copy of the session.
   * @throws for an unreadable file (the I/O error as is); a DriverError coded `RESOURCE_EXHAUSTED`
   * for a file longer than the driver reads; a DriverError coded `INVALID` or `IS_DIRECTORY` for
   * anything but a regular file of its own at a session file's path (a symbolic or hard link, a
   * FIFO, a folder), or a link in place of a folder above it (as the `@adaptor/driver/process`
   * readers refuse them): the SDK counts a stored file found so as replaced, never exported.
   */
  exportSession(location: SessionLocation, signal?: AbortSignal): Promise<readonly SessionFile[] | undefined>;
  /**
   * Writes `files` (from {@link exportSession}, on any host) where this host's CLI resumes the
   * session from, replacing a local copy, and ends a live process of this driver still serving the
   * session (its conversation is no longer the stored one). A link planted in place of a session
   * file or of a folder above it in the CLI home is removed before that process is ended (it may
   * write to its files by path as it exits), so nothing is ever written through it
   * (`unlinkPlantedLinks` of `@adaptor/driver/process`).
   * @throws TypeError for files this driver cannot place (an unknown name), before anything is
   * written (the SDK reports the stored state `damaged`); the I/O error of a failed write.
   */
  importSession(location: SessionLocation, files: readonly SessionFile[], signal?: AbortSignal): Promise<void>;
  /**
   * Optional: {@link exportSession} reading each file only from `from(name)` on (the SDK asks for
   * the bytes a turn added plus a bounded window before them, so a turn's cost does not grow with
   * the transcript). Each file comes back as a {@link SessionFileSlice} whose `offset` is
   * `min(from(name), length)`: an offset at or past the end gives just the length. The checkpoint
   * in `location.data` must be found in the bytes read: the SDK reads from before where the last
   * committed turn ended, so the new turn's entries are always among them. Resolves `undefined`
   * when this host has no copy of the session.
   * @throws as {@link exportSession}.
   */
  exportSessionFrom?(
    location: SessionLocation,
    from: (name: string) => number,
    signal?: AbortSignal,
  ): Promise<readonly SessionFileSlice[] | undefined>;
  /**
   * Optional: completes an older copy of the session on this host: first ends a live process of
   * this driver still serving the session, as {@link importSession} does, then writes each slice's
   * `content` at its `offset` of the named file, replacing whatever follows `offset` (entries the
   * ended process added). The SDK calls it only after checking that the local bytes are the stored
   * ones up to `offset`, and checks the result as it checks a local copy.
   * @throws for an unknown name, a file shorter than `offset`, or a failed write (then the SDK
   * restores the files whole with {@link importSession}).
   */
  appendSession?(location: SessionLocation, slices: readonly SessionFileSlice[], signal?: AbortSignal): Promise<void>;
  /**
   * Optional: whether a live process of this driver is parked on the session (`location.resumeId`)
   * between its turns on this host, so a turn that may reuse it would be offered it. Such a process
   * owns the session's files while it lives: a CLI writes to them between turns (a background
   * task's end, its own bookkeeping), so the SDK takes what follows the stored bytes as that
   * process's and leaves it in place for the reusing turn (exported with it), where it would
   * otherwise cut the files back to the stored bytes, which ends the process. Without this method
   * no process is taken as parked. Must not take, end or wait for the process.
   */
  parked?(location: SessionLocation): boolean;
}
