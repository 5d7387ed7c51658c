import { readFileSync } from "node:fs";

/**
 * The fields of `/proc/<pid>/stat` (Linux) after the command name, from field 3 (`state`) on:
 * element `i` is field `i + 3` as proc(5) numbers them (`[0]` state, `[1]` ppid, `[11]` utime,
 * `[19]` starttime). The command name (field 2) may hold spaces and `)`, so the fields are counted
 * after its last `)`. Undefined where the file cannot be read (no such process, not Linux).
 */
export function procStatFields(pid: number): string[] | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, "latin1");
  } catch {
    return undefined;
  }
  return stat.slice(stat.lastIndexOf(")") + 2).split(" ");
}
