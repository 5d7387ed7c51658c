import type { DriverSink } from "@adaptor/driver";

/**
 * Tells `sink`, in one `runtime` notice (`data.count`), how many lines of a turn came after its
 * terminal (`turn/completed` on app-server, `turn.completed` / `turn.failed` on exec) and were
 * dropped: the first terminal decides the turn. Nothing when there were none.
 */
export function reportLateOutput(sink: DriverSink, count: number): void {
  if (count === 0) return;
  sink.emit({ type: "notice", kind: "runtime", message: "output after the turn's end dropped", data: { count } });
}

/**
 * The `tool-result` output of a tool call codex had not answered when its turn ended (a command it
 * keeps running past its answer to the model, `exec_command` with `yield_time_ms`) and that wrote
 * nothing: the SDK answers it before the turn's end, `isError` true, and the command ends with the turn.
 */
export const STILL_RUNNING = "still running when the turn ended, ended by the SDK";
