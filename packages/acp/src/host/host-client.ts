import { constants } from "node:fs";
import { lstat, readlink, realpath } from "node:fs/promises";
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import type * as acp from "@agentclientprotocol/sdk";
import { RequestError } from "@agentclientprotocol/sdk";
import type { ApprovalAsk, ApprovalDecision, DriverSink } from "@adaptor/driver";
import { isReadOnlyKind, type AcpPolicyPlan } from "../policy/acp-policy.js";
import { AcpApprovalEditUnsupportedError } from "./approval-edit-unsupported-error.js";
import { ApprovedAsks } from "./approved-asks.js";
import { openRegularFile, readTextBounded } from "./host-files.js";
import { canOpenBeneath, openBeneath, PathChangedError } from "./open-beneath.js";
import type { HostTerminals } from "./host-terminals.js";

/** The ACP client methods the host serves for the agent (the `fs` and `terminal` capabilities). */
export const HOST_METHODS = [
  "fs/read_text_file",
  "fs/write_text_file",
  "terminal/create",
  "terminal/output",
  "terminal/wait_for_exit",
  "terminal/kill",
  "terminal/release",
] as const;

/** One of {@link HOST_METHODS}. */
export type HostMethod = (typeof HOST_METHODS)[number];

/**
 * The host side of one turn: what the agent does through the host (`fs/*`, `terminal/*`) under
 * the run's policy, and the approval path of its permission asks.
 * - `read_only`: `fs/write_text_file` and `terminal/create` are refused; every permission ask for a
 *   tool whose ACP kind is not `read` or `search` is denied unasked (with a session mode of its own too).
 * - `workspace_write`: `fs/write_text_file` outside the working directory, or to a file with more
 *   than one hard link, is refused; every `terminal/create` is asked about (the terminal is offered only under the `ask` mode).
 * - under any policy, `fs/read_text_file` and `fs/write_text_file` serve regular files only (a
 *   directory, FIFO, socket or device is refused at once, without blocking), and a read is bounded to
 *   16 MiB.
 * - a permission mode (`ask`, `auto_approve`, `auto_deny`): a write or command no approved ask of
 *   the agent covers ({@link ApprovedAsks}: an ask of an acting kind naming the same file, an
 *   `execute` ask naming the same command line, each used once) is asked about here, through the
 *   same approval path.
 * - a delegation tool's ask (`delegationTools`: a sub-agent whose own calls never reach the host) is
 *   denied unasked under a policy the agent's asks enforce (`ask`, `auto_deny`, `read_only` through the ask mode).
 * - an approval with an edited input of the agent's own ask is refused: the tool is denied
 *   ({@link AcpApprovalEditUnsupportedError}); the host's own asks (for a write or command the agent
 *   did not ask about) apply the edited input themselves (`path` / `content`, `command` / `args` / `cwd` / `env`).
 * - a `terminal/create` with an `env` of its own is asked about by the host under a permission mode,
 *   even after the agent's own approved ask; the ask's input and title show the variables.
 * - a terminal whose command the host asked about and that was approved is the ask of one tool call
 *   that names it ({@link takeAskedTerminal}); a `terminal/create` refused before anything started
 *   is reported to `onTerminalRefused`.
 */
export class HostClient {
  readonly #plan: AcpPolicyPlan;
  readonly #sink: DriverSink;
  readonly #cwd: string;
  readonly #terminals: HostTerminals;
  readonly #driver: string;
  readonly #delegationTools: readonly string[];
  /** Approved asks of the agent not yet used by a host write or command. */
  readonly #approved: ApprovedAsks;
  /** Host terminals whose command the host itself asked about and the host approved, not yet claimed by a tool call. */
  readonly #askedTerminals = new Set<string>();
  /** Host terminals started under an explicit permission mode: their command was approved (the host's ask or the agent's). */
  readonly #approvedTerminals = new Set<string>();
  readonly #onTerminalRefused: (request: acp.CreateTerminalRequest) => void;
  /** The edited approval refused during the turn, if any. */
  editRefused: AcpApprovalEditUnsupportedError | undefined;
  /** The sink the turn asks through: the read_only gate and the edited-input refusal in front of the run's sink. */
  readonly sink: DriverSink;

  constructor(options: {
    plan: AcpPolicyPlan;
    sink: DriverSink;
    cwd: string;
    terminals: HostTerminals;
    driver: string;
    delegationTools?: readonly string[];
    /** Called with each `terminal/create` the host refused before starting anything (the command did not run). */
    onTerminalRefused?: (request: acp.CreateTerminalRequest) => void;
  }) {
    this.#onTerminalRefused = options.onTerminalRefused ?? (() => undefined);
    this.#delegationTools = options.delegationTools ?? [];
    this.#plan = options.plan;
    this.#sink = options.sink;
    this.#cwd = options.cwd;
    this.#terminals = options.terminals;
    this.#driver = options.driver;
    this.#approved = new ApprovedAsks(options.cwd);
    this.sink = { emit: (event) => this.#sink.emit(event), requestApproval: (ask) => this.#ask(ask) };
  }

  async #ask(ask: ApprovalAsk): Promise<ApprovalDecision> {
    if (this.#plan.denyNonReadAsks && ask.kind === "permission" && !isReadOnlyKind(ask.details?.["toolKind"]))
      return this.#denyUnasked(ask, `the run's sandbox is read_only; ${ask.toolName ?? "this tool"} is not a read`);
    if (this.#plan.unaskedFails.length > 0 && ask.kind === "permission" && this.#delegationTools.includes(ask.toolName ?? ""))
      return this.#denyUnasked(
        ask,
        `${ask.toolName ?? "this tool"} starts a sub-agent whose own tool calls the host is never asked about, under the run's ${this.#plan.unaskedFails.join(" and ")}`,
      );
    const decision = await this.#sink.requestApproval(ask);
    if (decision.outcome === "approve" && decision.updatedInput !== undefined) {
      const error = new AcpApprovalEditUnsupportedError(this.#driver, ask.toolName, ask.toolCallId);
      this.editRefused ??= error;
      this.#sink.emit({
        type: "notice",
        kind: "policy",
        message: error.message,
        data: { toolName: ask.toolName, toolCallId: ask.toolCallId },
      });
      return { outcome: "deny", reason: "an edited input cannot be carried over ACP" };
    }
    if (ask.kind === "permission" && allows(ask, decision)) this.#approved.add(ask);
    return decision;
  }

  /** Denies `ask` without asking, with a `policy` notice giving `reason`. */
  #denyUnasked(ask: ApprovalAsk, reason: string): ApprovalDecision {
    this.#sink.emit({
      type: "notice",
      kind: "policy",
      message: `denied without asking: ${reason}`,
      data: { toolName: ask.toolName, toolCallId: ask.toolCallId },
    });
    return { outcome: "deny", reason };
  }

  /** Serves one host method of the agent. @throws RequestError the agent sees as the method's error. */
  async handle(method: HostMethod, params: unknown): Promise<unknown> {
    const subject = params as { path?: unknown; command?: unknown; terminalId?: unknown };
    this.#sink.emit({
      type: "notice",
      kind: "host",
      message: `${method} ${String(subject.path ?? subject.command ?? subject.terminalId ?? "")}`,
      data: {
        method,
        ...(typeof subject.path === "string" ? { path: subject.path } : {}),
        ...(typeof subject.command === "string" ? { command: subject.command } : {}),
      },
    });
    switch (method) {
      case "fs/read_text_file":
        return this.#read(params as acp.ReadTextFileRequest);
      case "fs/write_text_file":
        return this.#write(params as acp.WriteTextFileRequest);
      case "terminal/create":
        return this.#create(params as acp.CreateTerminalRequest);
      case "terminal/output":
        return this.#terminals.output(params as acp.TerminalOutputRequest);
      case "terminal/wait_for_exit":
        return this.#terminals.waitForExit(params as acp.WaitForTerminalExitRequest);
      case "terminal/kill":
        return this.#terminals.kill(params as acp.KillTerminalRequest);
      case "terminal/release":
        return this.#terminals.release(params as acp.ReleaseTerminalRequest);
    }
  }

  async #read(request: acp.ReadTextFileRequest): Promise<acp.ReadTextFileResponse> {
    let opened: Awaited<ReturnType<typeof openRegularFile>>;
    try {
      opened = await openRegularFile("fs/read_text_file", request.path, request.path, constants.O_RDONLY);
    } catch (error) {
      if (error instanceof RequestError) throw error;
      throw Object.assign(RequestError.resourceNotFound(request.path), { cause: error });
    }
    try {
      return { content: await readTextBounded(opened.file, opened.stats.size, request.path, request) };
    } finally {
      await opened.file.close();
    }
  }

  async #write(asked: acp.WriteTextFileRequest): Promise<acp.WriteTextFileResponse> {
    await this.#checkWrite(asked.path);
    const { input: edited } = await this.#askFirst(
      "fs/write_text_file",
      `Write ${asked.path}`,
      { path: asked.path, content: asked.content },
      () => this.#approved.takeWrite(asked.path),
    );
    // The host applies an edit of its own ask itself: the edited path is held to the same rules.
    const path = typeof edited?.["path"] === "string" ? edited["path"] : asked.path;
    const content = typeof edited?.["content"] === "string" ? edited["content"] : asked.content;
    // Checked again just before the write (also when the path is the asked one: the agent may have
    // swapped a link in while the host was asked).
    const target = await this.#checkWrite(path);
    if (target === undefined) {
      const { file } = await openRegularFile("fs/write_text_file", path, path, constants.O_WRONLY | constants.O_CREAT);
      try {
        await file.truncate(0);
        await file.writeFile(content, "utf8");
      } finally {
        await file.close();
      }
    } else await this.#writeInWorkspace(path, target, content);
    return {};
  }

  /**
   * Writes `content` to `target` (the checked real path of `path`) without following a symlink the
   * check did not see. On Linux the file is opened beneath the working directory one directory at a
   * time ({@link openBeneath}): a directory on the way, or the file, swapped for a symlink after the
   * check fails the write (refused, nothing created or written outside), and a new file is created
   * only in a directory so opened. Elsewhere only its last component is opened with `O_NOFOLLOW`:
   * a directory on the way swapped for a symlink between the check and the open is followed.
   * The file is opened without truncating it and checked on the open descriptor before anything
   * changes: an existing file with more than one hard link is refused (another link may be outside
   * the working directory), so a file swapped in after the check cannot be reached either; so is
   * anything but a regular file, at once ({@link openRegularFile}).
   */
  async #writeInWorkspace(path: string, target: string, content: string): Promise<void> {
    const flags = constants.O_WRONLY | constants.O_CREAT | constants.O_NOFOLLOW;
    let opened: Awaited<ReturnType<typeof openRegularFile>>;
    try {
      opened = canOpenBeneath()
        ? await openBeneath("fs/write_text_file", path, await this.#root(), target, flags)
        : await openRegularFile("fs/write_text_file", path, target, flags);
    } catch (error) {
      if (!(error instanceof PathChangedError)) throw error;
      this.#refuse(
        "fs/write_text_file",
        path,
        `the run's sandbox is workspace_write and ${path} changed while it was opened (${error.message}); nothing was written`,
      );
    }
    const { file, stats: stat } = opened;
    try {
      if (stat.nlink > 1)
        this.#refuse(
          "fs/write_text_file",
          path,
          `the run's sandbox is workspace_write and ${path} has ${stat.nlink} hard links (one may be outside ${this.#cwd})`,
        );
      await file.truncate(0);
      await file.writeFile(content, "utf8");
    } finally {
      await file.close();
    }
  }

  /**
   * Refuses a write the sandbox forbids. Under `workspace_write` returns the real path to write
   * (its directory resolved, and a final symlink resolved to its target inside the working
   * directory); otherwise `undefined`: the path is written as given.
   */
  async #checkWrite(path: string): Promise<string | undefined> {
    if (path.endsWith("/") || path.endsWith(sep))
      throw RequestError.invalidParams(
        { path },
        `fs/write_text_file refused by the host: ${path} ends with "/" (a directory); the path must name a file`,
      );
    if (this.#plan.writes === "deny") this.#refuse("fs/write_text_file", path, "the run's sandbox is read_only");
    if (this.#plan.writes !== "workspace") return undefined;
    const target = await this.#inWorkspace(path);
    if (target === undefined)
      this.#refuse("fs/write_text_file", path, `the run's sandbox is workspace_write and ${path} is outside ${this.#cwd}`);
    return target;
  }

  async #create(asked: acp.CreateTerminalRequest): Promise<acp.CreateTerminalResponse> {
    let request: acp.CreateTerminalRequest;
    let hostAsked: boolean;
    try {
      ({ request, hostAsked } = await this.#terminalRequest(asked));
    } catch (error) {
      // Refused before anything was started: the command did not run.
      this.#onTerminalRefused(asked);
      throw error;
    }
    const created = await this.#terminals.create(request);
    if (hostAsked) this.#askedTerminals.add(created.terminalId);
    if (this.#plan.hostAsks) this.#approvedTerminals.add(created.terminalId);
    return created;
  }

  /**
   * The terminal to start for the agent's `terminal/create` under the run's policy (the host's
   * edit of its own ask applied), and whether the host itself asked about it (and it was approved).
   * @throws RequestError when the host refuses it.
   */
  async #terminalRequest(asked: acp.CreateTerminalRequest): Promise<{ request: acp.CreateTerminalRequest; hostAsked: boolean }> {
    const command = [asked.command, ...(asked.args ?? [])].join(" ");
    if (this.#plan.commands === "deny") this.#refuse("terminal/create", command, "the run's sandbox is read_only");
    // The variables the command gets on top of the agent's environment are part of what is approved
    // (BASH_ENV, PATH, LD_PRELOAD, NODE_OPTIONS change what a command does): shown in the ask.
    const env = (asked.env ?? []).map(({ name, value }) => ({ name, value }));
    const shown = [...env.map(({ name, value }) => `${name}=${value}`), command].join(" ");
    // Under workspace_write a command the host spawns is not confined: each one is asked about. So is
    // one with variables of its own: an agent's own ask does not show them.
    const { asked: hostAsked, input: edited } = await this.#askFirst(
      "terminal/create",
      `Run ${shown}`,
      { command: asked.command, args: asked.args ?? [], cwd: asked.cwd ?? this.#cwd, env },
      // The agent's ask showed neither an environment nor another directory: such a command is asked here.
      () =>
        env.length === 0 &&
        (asked.cwd == null || resolve(asked.cwd) === resolve(this.#cwd)) &&
        this.#approved.takeCommand(asked.command, asked.args ?? []),
      this.#plan.commands === "ask",
    );
    return { request: edited ? this.#editedRequest(asked, edited, env, shown) : asked, hostAsked };
  }

  /**
   * Whether the host itself asked about the command of `terminalId` and it was approved: that ask
   * is the ask of the tool call whose content names the terminal. Each such terminal answers for one call.
   */
  takeAskedTerminal(terminalId: string): boolean {
    return this.#askedTerminals.delete(terminalId);
  }

  /**
   * Whether `terminalId` is a host terminal of this turn whose command was approved under the run's
   * permission mode (the host's own ask, or the agent's approved ask of the same command), also
   * after it exited or was released.
   */
  approvedTerminal(terminalId: string): boolean {
    return this.#approvedTerminals.has(terminalId);
  }

  /** The terminal of a `terminal/create` whose host ask was approved with `edited` input. */
  #editedRequest(
    asked: acp.CreateTerminalRequest,
    edited: Record<string, unknown>,
    env: acp.EnvVariable[],
    shown: string,
  ): acp.CreateTerminalRequest {
    // The host applies an edit of its own ask itself: it runs the command the host approved.
    const args = Array.isArray(edited["args"]) ? edited["args"].map(String) : asked.args;
    return {
      ...asked,
      command: typeof edited["command"] === "string" ? edited["command"] : asked.command,
      ...(args ? { args } : {}),
      cwd: typeof edited["cwd"] === "string" ? edited["cwd"] : (asked.cwd ?? null),
      env: "env" in edited ? this.#editedEnv(edited["env"], shown) : env,
    };
  }

  /** The `env` of an edited `terminal/create` ask: `[{ name, value }]` strings, as ACP's request has it. */
  #editedEnv(value: unknown, subject: string): acp.EnvVariable[] {
    const valid =
      Array.isArray(value) &&
      value.every(
        (entry: unknown) =>
          typeof entry === "object" &&
          entry !== null &&
          typeof (entry as { name?: unknown }).name === "string" &&
          (entry as { name: string }).name !== "" &&
          typeof (entry as { value?: unknown }).value === "string",
      );
    if (!valid) this.#refuse("terminal/create", subject, "the edited env is not an array of { name, value } strings");
    return (value as acp.EnvVariable[]).map(({ name, value }) => ({ name, value }));
  }

  /**
   * Under a permission mode: a write or command no approved ask of the agent covers (`covered`
   * uses that ask's credit) is asked about now (with `always`, even when the agent's own ask was
   * approved; without a permission mode it is refused).
   * Resolves with whether the host asked (and the ask was approved), and the host's edited input
   * when it approved with one (the host applies it).
   */
  async #askFirst(
    toolName: string,
    title: string,
    input: Record<string, unknown>,
    covered: () => boolean,
    always = false,
  ): Promise<{ asked: boolean; input?: Record<string, unknown> }> {
    if (!this.#plan.hostAsks) {
      if (always) this.#refuse(toolName, title, "the run's sandbox is workspace_write and no one is asked before a host command");
      return { asked: false };
    }
    if (!always && covered()) return { asked: false };
    // The host runs what it approves itself, so an edited input can be applied.
    const decision = await this.#sink.requestApproval({ kind: "permission", title, toolName, input, inputEditable: true });
    if (decision.outcome === "approve") {
      const edited = decision.updatedInput;
      if (edited === undefined) return { asked: true };
      if (typeof edited === "object" && edited !== null && !Array.isArray(edited))
        return { asked: true, input: edited as Record<string, unknown> };
      this.#refuse(toolName, title, "the edited input is not an object");
    }
    this.#refuse(toolName, title, `denied: ${decision.outcome === "deny" ? decision.reason : "not approved"}`);
  }

  #refuse(method: string, subject: string, why: string): never {
    this.#sink.emit({ type: "notice", kind: "policy", message: `refused ${method} ${subject}: ${why}`, data: { method, subject } });
    throw RequestError.invalidRequest(undefined, `${method} refused by the host: ${why}`);
  }

  /**
   * The real path a write of `path` reaches when it stays inside the working directory, else
   * `undefined`: the directory is resolved (a symlinked directory is followed), and so is a final
   * component that is a symlink (to its resolved target, or for a dangling link to its literal
   * target resolved against the link's directory, whose own directory must then exist).
   */
  async #inWorkspace(path: string): Promise<string | undefined> {
    if (!isAbsolute(path)) return undefined;
    const root = await this.#root();
    const inside = (real: string): boolean => {
      const rel = relative(root, real);
      return rel === "" || (!rel.startsWith(`..${sep}`) && rel !== ".." && !isAbsolute(rel));
    };
    // The file may not exist yet: its directory must.
    const dir = await realpath(dirname(path)).catch(() => undefined);
    if (dir === undefined || !inside(dir)) return undefined;
    const real = join(dir, basename(path));
    const stat = await lstat(real).catch(() => undefined);
    if (!stat?.isSymbolicLink()) return real;
    const linked = await realpath(real).catch(() => undefined);
    if (linked !== undefined) return inside(linked) ? linked : undefined;
    // Dangling: where the write would create the file.
    const literal = resolve(dir, await readlink(real));
    const literalDir = await realpath(dirname(literal)).catch(() => undefined);
    if (literalDir === undefined || !inside(literalDir)) return undefined;
    return join(literalDir, basename(literal));
  }

  /** The working directory's real path (as given when it cannot be resolved). */
  #root(): Promise<string> {
    return realpath(this.#cwd).catch(() => this.#cwd);
  }

  /** Ends the turn's terminals. */
  close(): Promise<void> {
    return this.#terminals.close();
  }
}

/** Whether `decision` lets the call of `ask` run: an approve, or an answer choosing one of its `allow_*` options. */
function allows(ask: ApprovalAsk, decision: ApprovalDecision): boolean {
  if (decision.outcome !== "answer") return decision.outcome === "approve";
  const options = ask.details?.["options"];
  const chosen = Array.isArray(options)
    ? (options as { optionId?: unknown; kind?: unknown }[]).find((o) => o.optionId === decision.choice)
    : undefined;
  return typeof chosen?.kind === "string" && chosen.kind.startsWith("allow_");
}
