import type * as acp from "@agentclientprotocol/sdk";
import { RequestError } from "@agentclientprotocol/sdk";
import { spawnCli, type CliProcess, type ExitInfo } from "@adaptor/driver/process";
import { TerminalOutput } from "./terminal-output.js";

/** Output kept per terminal when the agent sets no `outputByteLimit`: 1 MiB (at most the host's maximum). */
export const DEFAULT_TERMINAL_OUTPUT_BYTES = 1024 * 1024;

interface Terminal {
  readonly proc: CliProcess;
  readonly output: TerminalOutput;
  exit?: ExitInfo;
}

/** How the host starts an agent's terminal commands. */
export interface TerminalLaunch {
  /** Environment of the agent process; the request's `env` is laid over it. */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Working directory when the request names none. */
  readonly cwd: string;
  /** SIGTERM → SIGKILL grace, ms (the driver's `killGraceMs`). */
  readonly killGraceMs?: number;
  /** Device name in errors. */
  readonly device: string;
  /** Most output bytes kept per terminal: the agent's `outputByteLimit` is lowered to it. */
  readonly maxOutputBytes: number;
}

/**
 * The terminals one turn started for the agent (ACP `terminal/*`): each command is a CLI process of
 * the driver kit (`spawnCli`: own process group, bounded output, SIGTERM then SIGKILL to the whole
 * group), and {@link close} ends every one still running when the turn ends.
 */
export class HostTerminals {
  readonly #launch: TerminalLaunch;
  readonly #terminals = new Map<string, Terminal>();
  /** Exit codes of the turn's terminals that exited with one, released or not (one number per terminal). */
  readonly #exitCodes = new Map<string, number>();
  #next = 0;
  #closed = false;

  constructor(launch: TerminalLaunch) {
    this.#launch = launch;
  }

  /** Starts `command` (with `args`, else through `/bin/sh -c`). */
  async create(request: acp.CreateTerminalRequest): Promise<acp.CreateTerminalResponse> {
    if (this.#closed) throw RequestError.invalidRequest(undefined, "the turn has ended");
    const args = request.args ?? [];
    // The agent's limit, lowered to the host's: the output is held in the host's memory.
    const asked = request.outputByteLimit;
    const limit = typeof asked === "number" && asked >= 0 ? asked : DEFAULT_TERMINAL_OUTPUT_BYTES;
    const output = new TerminalOutput(Math.min(limit, this.#launch.maxOutputBytes));
    const env: Record<string, string | undefined> = { ...this.#launch.env };
    for (const variable of request.env ?? []) env[variable.name] = variable.value;
    const proc = await spawnCli({
      command: args.length > 0 ? request.command : "/bin/sh",
      args: args.length > 0 ? args : ["-c", request.command],
      cwd: request.cwd ?? this.#launch.cwd,
      env,
      device: this.#launch.device,
      // Output is bytes, shown as they came: never split into lines, so no line is too long for it.
      onStdout: (chunk) => output.push(chunk),
      onStderr: (text) => output.push(text),
      ...(this.#launch.killGraceMs !== undefined ? { killGraceMs: this.#launch.killGraceMs } : {}),
    });
    proc.closeStdin();
    const id = `terminal-${++this.#next}`;
    const terminal: Terminal = { proc, output };
    this.#terminals.set(id, terminal);
    void proc.exited.then((exit) => {
      terminal.exit = exit;
      if (exit.code !== null) this.#exitCodes.set(id, exit.code);
    });
    return { terminalId: id };
  }

  output(request: acp.TerminalOutputRequest): acp.TerminalOutputResponse {
    const terminal = this.#get(request.terminalId);
    return {
      output: terminal.output.text,
      truncated: terminal.output.truncated,
      ...(terminal.exit ? { exitStatus: exitStatus(terminal.exit) } : {}),
    };
  }

  async waitForExit(request: acp.WaitForTerminalExitRequest): Promise<acp.WaitForTerminalExitResponse> {
    const terminal = this.#get(request.terminalId);
    return exitStatus(await terminal.proc.exited);
  }

  async kill(request: acp.KillTerminalRequest): Promise<acp.KillTerminalResponse> {
    await this.#get(request.terminalId).proc.terminate();
    return {};
  }

  async release(request: acp.ReleaseTerminalRequest): Promise<acp.ReleaseTerminalResponse> {
    const terminal = this.#get(request.terminalId);
    this.#terminals.delete(request.terminalId);
    await terminal.proc.close();
    return {};
  }

  /** The exit code of terminal `id` of this turn once it exited with one (released or not); undefined otherwise. */
  exitCodeOf(id: string): number | undefined {
    return this.#exitCodes.get(id);
  }

  /** Ends every terminal still running and refuses new ones. Idempotent. */
  async close(): Promise<void> {
    this.#closed = true;
    const all = [...this.#terminals.values()];
    this.#terminals.clear();
    await Promise.all(all.map((terminal) => terminal.proc.close()));
  }

  #get(id: string): Terminal {
    const terminal = this.#terminals.get(id);
    if (!terminal) throw RequestError.invalidParams(undefined, `unknown terminal ${JSON.stringify(id)}`);
    return terminal;
  }
}

function exitStatus(exit: ExitInfo): { exitCode: number | null; signal: string | null } {
  return { exitCode: exit.code, signal: exit.signal };
}
