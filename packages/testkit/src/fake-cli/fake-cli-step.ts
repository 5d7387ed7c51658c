/**
 * One step of a fake CLI scenario; steps run in order, each an object with exactly one key:
 *
 * - `{ write: text }` writes exact UTF-8 text to stdout; `{ writeBase64: b64 }` exact bytes;
 *   `{ stderr: text }` UTF-8 text to stderr. Each write is flushed to the pipe before the next step.
 * - `{ sleepMs: n }` waits `n` milliseconds.
 * - `{ awaitStdinLine: true }` waits for the next complete stdin line (lines are counted: each step
 *   consumes one); `{ echoStdinLine: true }` also writes it back on stdout as
 *   `{"type":"echo","line":<parsed JSON, or the string when not JSON>}\n`. If stdin ends first, the
 *   fake exits with code 3. `{ awaitStdinEnd: true }` waits until stdin ends (lines arriving meanwhile
 *   are dropped) and goes on with the next step, as a CLI that exits 0 when its input closes.
 * - `{ closeStdin: true }` the fake destroys its own stdin, so a parent's later writes get EPIPE.
 * - `{ closeStdout: true }` the fake closes its stdout: the parent reads its end while the fake
 *   lives on (later writes to stdout are lost).
 * - `{ ignoreSigterm: true }` installs a SIGTERM handler that does nothing (only SIGKILL stops it).
 * - `{ spawnGrandchild: true }` starts a long-lived `node` grandchild in the same process group (not
 *   detached, stdio ignored) and writes `{"type":"grandchild","pid":N}\n` to stdout.
 * - `{ hang: true }` stays alive forever.
 * - `{ exit: code }` exits with `code` (0..255). Without it the fake exits 0 after the last step.
 *
 * A malformed scenario makes the fake print `fake-cli: ...` on stderr and exit 2.
 */
export type FakeCliStep =
  | { readonly write: string }
  | { readonly writeBase64: string }
  | { readonly stderr: string }
  | { readonly sleepMs: number }
  | { readonly awaitStdinLine: true }
  | { readonly awaitStdinEnd: true }
  | { readonly echoStdinLine: true }
  | { readonly closeStdin: true }
  | { readonly closeStdout: true }
  | { readonly ignoreSigterm: true }
  | { readonly spawnGrandchild: true }
  | { readonly hang: true }
  | { readonly exit: number };
