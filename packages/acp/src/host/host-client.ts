import { readFile, realpath, writeFile } from "node:fs/promises";
import { dirname, isAbsolute, relative, sep } from "node:path";
import type * as acp from "@agentclientprotocol/sdk";
import { RequestError } from "@agentclientprotocol/sdk";
import type { ApprovalAsk, ApprovalDecision, DriverSink } from "@adaptor/driver";
import { isReadOnlyKind, type AcpPolicyPlan } from "../policy/acp-policy.js";
import { AcpApprovalEditUnsupportedError } from "./approval-edit-unsupported-error.js";
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
 * - `read_only`: `fs/write_text_file` and `terminal/create` are refused; without a session mode of
 *   its own, every permission ask for a tool whose ACP kind is not a read is denied unasked.
 * - `workspace_write`: `fs/write_text_file` outside the working directory is refused.
 * - a permission mode (`ask`, `auto_approve`, `auto_deny`): a write or command the agent did not
 *   ask about first is asked about here, through the same approval path.
 * - an approval with an edited input is refused: the tool is denied ({@link AcpApprovalEditUnsupportedError}).
 */
export class HostClient {
  readonly #plan: AcpPolicyPlan;
  readonly #sink: DriverSink;
  readonly #cwd: string;
  readonly #terminals: HostTerminals;
  readonly #driver: string;
  /** Approved asks not yet used by a host write or command. */
  #approved = 0;
  /** The edited approval refused during the turn, if any. */
  editRefused: AcpApprovalEditUnsupportedError | undefined;
  /** The sink the turn asks through: the read_only gate and the edited-input refusal in front of the run's sink. */
  readonly sink: DriverSink;

  constructor(options: { plan: AcpPolicyPlan; sink: DriverSink; cwd: string; terminals: HostTerminals; driver: string }) {
    this.#plan = options.plan;
    this.#sink = options.sink;
    this.#cwd = options.cwd;
    this.#terminals = options.terminals;
    this.#driver = options.driver;
    this.sink = { emit: (event) => this.#sink.emit(event), requestApproval: (ask) => this.#ask(ask) };
  }

  async #ask(ask: ApprovalAsk): Promise<ApprovalDecision> {
    if (this.#plan.denyNonReadAsks && ask.kind === "permission" && !isReadOnlyKind(ask.details?.["toolKind"])) {
      const reason = `the run's sandbox is read_only; ${ask.toolName ?? "this tool"} is not a read`;
      this.#sink.emit({
        type: "notice",
        kind: "policy",
        message: `denied without asking: ${reason}`,
        data: { toolName: ask.toolName, toolCallId: ask.toolCallId },
      });
      return { outcome: "deny", reason };
    }
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
    if (decision.outcome === "approve") this.#approved += 1;
    return decision;
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
    let content: string;
    try {
      content = await readFile(request.path, "utf8");
    } catch (error) {
      throw Object.assign(RequestError.resourceNotFound(request.path), { cause: error });
    }
    if (request.line == null && request.limit == null) return { content };
    const lines = content.split("\n");
    const start = Math.max(0, (request.line ?? 1) - 1);
    return { content: lines.slice(start, request.limit == null ? undefined : start + request.limit).join("\n") };
  }

  async #write(request: acp.WriteTextFileRequest): Promise<acp.WriteTextFileResponse> {
    if (this.#plan.writes === "deny") this.#refuse("fs/write_text_file", request.path, "the run's sandbox is read_only");
    if (this.#plan.writes === "workspace" && !(await this.#inWorkspace(request.path)))
      this.#refuse("fs/write_text_file", request.path, `the run's sandbox is workspace_write and ${request.path} is outside ${this.#cwd}`);
    await this.#askFirst("fs/write_text_file", `Write ${request.path}`, { path: request.path, content: request.content });
    await writeFile(request.path, request.content, "utf8");
    return {};
  }

  async #create(request: acp.CreateTerminalRequest): Promise<acp.CreateTerminalResponse> {
    const command = [request.command, ...(request.args ?? [])].join(" ");
    if (this.#plan.commands === "deny") this.#refuse("terminal/create", command, "the run's sandbox is read_only");
    await this.#askFirst("terminal/create", `Run ${command}`, {
      command: request.command,
      args: request.args ?? [],
      cwd: request.cwd ?? this.#cwd,
    });
    return this.#terminals.create(request);
  }

  /** Under a permission mode: a write or command nobody approved in this turn is asked about now. */
  async #askFirst(toolName: string, title: string, input: Record<string, unknown>): Promise<void> {
    if (!this.#plan.hostAsks) return;
    if (this.#approved > 0) {
      this.#approved -= 1;
      return;
    }
    const decision = await this.#sink.requestApproval({ kind: "permission", title, toolName, input });
    if (decision.outcome === "approve" && decision.updatedInput === undefined) return;
    const reason = decision.outcome === "deny" ? decision.reason : "an edited input cannot be carried over ACP";
    this.#refuse(toolName, title, `denied: ${reason}`);
  }

  #refuse(method: string, subject: string, why: string): never {
    this.#sink.emit({ type: "notice", kind: "policy", message: `refused ${method} ${subject}: ${why}`, data: { method, subject } });
    throw RequestError.invalidRequest(undefined, `${method} refused by the host: ${why}`);
  }

  async #inWorkspace(path: string): Promise<boolean> {
    if (!isAbsolute(path)) return false;
    const root = await realpath(this.#cwd).catch(() => this.#cwd);
    // The file may not exist yet: its directory must.
    const dir = await realpath(dirname(path)).catch(() => undefined);
    if (dir === undefined) return false;
    const rel = relative(root, dir);
    return rel === "" || (!rel.startsWith(`..${sep}`) && rel !== ".." && !isAbsolute(rel));
  }

  /** Ends the turn's terminals. */
  close(): Promise<void> {
    return this.#terminals.close();
  }
}
