/**
 * Sends `signal` to the process group led by `pid` (`kill(-pid, signal)`), falling back to the
 * leader alone when the group is gone or cannot be signalled (it left the group, or EPERM).
 * Never throws: ESRCH (already dead) is not an error.
 *
 * @returns `true` when some process received the signal, `false` when nothing was alive.
 */
export function signalGroup(pid: number, signal: NodeJS.Signals): boolean {
  if (!Number.isSafeInteger(pid) || pid <= 0) return false;
  try {
    process.kill(-pid, signal);
    return true;
  } catch {
    try {
      process.kill(pid, signal);
      return true;
    } catch {
      return false;
    }
  }
}
