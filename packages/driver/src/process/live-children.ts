import { killAllDescendants } from "./descendants.js";
import { signalGroup } from "./kill.js";

/** Signals whose default action ends the parent; children in their own groups would not get them. */
const FATAL_SIGNALS: readonly NodeJS.Signals[] = process.platform === "win32" ? [] : ["SIGHUP", "SIGINT", "SIGTERM"];

/** Process-wide state, shared by every copy of this package so hooks are installed once. */
interface LiveChildren {
  /** Process groups (leader pids) spawned and not yet reaped. */
  readonly live: Set<number>;
  readonly onExit: () => void;
  readonly onSignal: ReadonlyMap<NodeJS.Signals, () => void>;
}

const KEY = Symbol.for("adaptor.driver.process.liveChildren");

const state: LiveChildren = ((globalThis as { [KEY]?: LiveChildren })[KEY] ??= createState());

function createState(): LiveChildren {
  const live = new Set<number>();
  const killAll = (): void => {
    killAllDescendants(); // scans while the CLIs still live, so their trees are found
    for (const pid of live) signalGroup(pid, "SIGKILL");
    killAllDescendants();
  };
  const onSignal = new Map<NodeJS.Signals, () => void>();
  const self: LiveChildren = { live, onExit: killAll, onSignal };
  for (const signal of FATAL_SIGNALS) {
    onSignal.set(signal, () => {
      if (process.listenerCount(signal) > 1) return; // someone else handles it and decides whether to exit
      uninstall(self);
      killAll();
      live.clear();
      process.kill(process.pid, signal); // no listener left: the default action ends the process
    });
  }
  return self;
}

function install({ onExit, onSignal }: LiveChildren): void {
  process.on("exit", onExit);
  for (const [signal, listener] of onSignal) process.on(signal, listener);
}

function uninstall({ onExit, onSignal }: LiveChildren): void {
  process.off("exit", onExit);
  for (const [signal, listener] of onSignal) process.off(signal, listener);
}

/**
 * Records a live child's process group so it is SIGKILLed if the parent goes first. While at least
 * one child is tracked, one `process.on("exit")` listener is installed for the whole process (not one
 * per child, and shared by duplicate copies of this package), plus one listener per
 * SIGHUP/SIGINT/SIGTERM that acts only when it is the sole listener: it kills the tracked groups and
 * re-raises the signal, so the default "terminate" behaviour is unchanged (the `signal-exit`
 * technique). An application that handles the signal itself owns shutdown; its `process.exit()`
 * still runs the exit hook.
 */
export function trackChild(pid: number): void {
  if (state.live.size === 0) install(state);
  state.live.add(pid);
}

/** Forgets a child once it was reaped (its pgid may be reused afterwards); the last one removes the hooks. */
export function untrackChild(pid: number): void {
  if (state.live.delete(pid) && state.live.size === 0) uninstall(state);
}

/** SIGKILLs every tracked process group, synchronously; what the parent-exit hook runs. */
export function killLiveChildren(): void {
  state.onExit();
}
