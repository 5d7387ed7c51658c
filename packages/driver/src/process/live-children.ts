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
  /** Keeps the signal listeners first when the host adds one of its own (see {@link install}). */
  readonly onNewListener: (event: string | symbol, listener: unknown) => void;
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
  let reordering = false;
  const onNewListener = (event: string | symbol, listener: unknown): void => {
    const signal = event as NodeJS.Signals;
    const ours = onSignal.get(signal);
    if (ours === undefined || listener === ours || reordering) return;
    // 'newListener' comes before the listener is added, maybe in front of ours (prependListener):
    // move ours back to the front once it is in. A signal is delivered from the event loop, never
    // before this microtask.
    queueMicrotask(() => {
      if (!installed(self)) return;
      reordering = true;
      process.off(signal, ours);
      process.prependListener(signal, ours);
      reordering = false;
    });
  };
  const self: LiveChildren = { live, onExit: killAll, onSignal, onNewListener };
  for (const signal of FATAL_SIGNALS) {
    onSignal.set(signal, () => {
      // Called first, before any `once` listener of the host removed itself: another listener here
      // means the host handles the signal and decides whether and when to exit.
      if (process.listenerCount(signal) > 1) return;
      uninstall(self);
      killAll();
      live.clear();
      process.kill(process.pid, signal); // no listener left: the default action ends the process
    });
  }
  return self;
}

/**
 * Each signal listener goes first (`prependListener`) and is moved back to the front whenever the
 * host adds a listener for that signal, so it runs before every listener of the host: Node removes
 * a `once` listener just before calling it, and a listener called after it could no longer see it.
 */
function install({ onExit, onSignal, onNewListener }: LiveChildren): void {
  process.on("exit", onExit);
  for (const [signal, listener] of onSignal) process.prependListener(signal, listener);
  process.on("newListener", onNewListener);
}

function uninstall({ onExit, onSignal, onNewListener }: LiveChildren): void {
  process.off("exit", onExit);
  for (const [signal, listener] of onSignal) process.off(signal, listener);
  process.off("newListener", onNewListener);
}

function installed({ onExit }: LiveChildren): boolean {
  return process.listeners("exit").includes(onExit);
}

/**
 * Records a live child's process group so it is SIGKILLed if the parent goes first. While at least
 * one child is tracked, one `process.on("exit")` listener is installed for the whole process (not one
 * per child, and shared by duplicate copies of this package), plus one listener per
 * SIGHUP/SIGINT/SIGTERM that acts only when it is the sole listener: it kills the tracked groups and
 * re-raises the signal, so the default "terminate" behaviour is unchanged (the `signal-exit`
 * technique). An application that had its own listener for the signal when it was raised (`on`,
 * `once` or `prependListener`, added before or after the first child) owns shutdown: the SDK does
 * nothing then, and the application's `process.exit()`, or its natural exit, still runs the exit hook.
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
