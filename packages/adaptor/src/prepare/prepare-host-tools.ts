import { AdaptorError } from "@adaptor/errors";
import type { ApprovalAsk, DriverResponse, HookAnswer, HookAsk, McpServerConfig, PermissionDenial, TranscriptItem } from "@adaptor/driver";
import { ErrInvalidConfig, ErrTransportUnsupported, ErrUnsupported, type HostToolReply, type HostToolSpec } from "@adaptor/mcp";
import { ErrInvalidDefinition, Tool } from "@adaptor/tool";
import { invokeTool, type ToolOutcome } from "@adaptor/tool/internal";
import type { Preparation } from "./preparation.js";
import { HOST_TOOL_SERVER_NAME } from "../tools/agent-tools.js";
import { checkHostToolMatchers } from "../hooks/host-tool-matchers.js";

/** One finished host-tool call of a run, as the host sees it. */
interface HostCall {
  readonly toolCallId: string;
  readonly tool: string;
  readonly outcome: ToolOutcome;
  readonly hostText: string;
}

/**
 * Preparation step for host tools: checks every definition (`ErrInvalidDefinition`,
 * names unique), that the driver takes HTTP MCP servers (`ErrMCPUnsupported`,
 * `ErrMCPTransportUnsupported`) and that no declared server is named `"adaptor"`
 * (`ErrInvalidMCPConfig`); then starts the agent's server if needed, opens this run's access to it
 * (a grant of its own, or its thread's shared grant; released at its end, see
 * `RunToolBinding.open`) and adds it to `request.mcpServers` as an `http` entry whose
 * `Authorization` header carries the token.
 *
 * The server is the gate: the token cannot be hidden from a process of the same OS user (the
 * CLI's argv names its MCP config; its environment is readable), so a request carrying it proves
 * nothing. A request runs only when it is a call the run's agent made: the id the CLI sent is a
 * `tool-call` the run reported for this tool with these arguments as its input (waited for at most
 * `REPORT_WAIT_MS`), else (a driver whose CLI sends no ids, `capabilities.mcp.callIds` not set)
 * `HostCallIds` claims a reported call of this tool with these arguments (at most
 * `CLAIM_WAIT_MS`); each reported call once. A request without an id on a driver whose CLI sends
 * them is refused at once. Any other request gets
 * `permission_denied: this call was not made by the agent of this run` and a `host-tool.refused`
 * notice (the first `MAX_REFUSED_NOTICES` of a run); no hook, approval or handler sees it.
 *
 * A call of the agent then passes the run's `beforeToolCall` hooks (a driver that takes the hook,
 * Claude Code, whose own hook path leaves host tools to this gate, so each call is asked once; the
 * others refuse it before launch): a deny is what the model
 * reads, an `updatedInput` replaces the arguments, an `additionalContext` follows the tool's own text
 * in what the model reads. Then the run's permission gate: unless the tool
 * says `needsApproval: false`, an `ask` / `auto_approve` / `auto_deny` permission mode decides it
 * through the run's approvals, exactly as a CLI's own tool's ask (`inherit` runs it, unless
 * `needsApproval: true`). A denied call never reaches the handler; the model reads
 * `permission_denied: <reason>`.
 *
 * Each call's hooks, approval, `tool-result` and denial carry the id of its `tool-call` event, and
 * come after that event.
 *
 * Each call emits one `tool-result` event, the host's view: `name` is the tool's own name and, for
 * a failure, `output` holds the full error text the model never sees; the CLI's own `tool-result`
 * of the same id that follows is folded into it (not emitted). Failed calls are also added to the
 * Result's transcript after the CLI's item, with the full error text.
 *
 * @throws InvalidOptionError (field e.g. `hooks.beforeToolCall[0].matcher`) for a tool hook
 * matcher naming a host tool under an MCP server name the run does not have (see
 * `checkHostToolMatchers`).
 */
export async function prepareHostTools(prep: Preparation): Promise<void> {
  const binding = prep.tools;
  if (!binding) return;
  const byName = new Map<string, Tool>();
  for (const [index, tool] of binding.tools.entries()) {
    if (!(tool instanceof Tool)) {
      throw new AdaptorError(`tools[${index}] is not a tool made by defineTool`, { sentinel: ErrInvalidDefinition });
    }
    if (tool.definitionError) throw tool.definitionError;
    if (byName.has(tool.name)) {
      throw new AdaptorError(`tool ${JSON.stringify(tool.name)}: invalid definition: the name is used by two tools`, {
        sentinel: ErrInvalidDefinition,
      });
    }
    byName.set(tool.name, tool);
  }
  const { type, capabilities } = prep.driver.descriptor;
  if (capabilities.mcp.transports.length === 0) {
    throw new AdaptorError(`driver ${type} does not support MCP servers, which host tools need`, { sentinel: ErrUnsupported });
  }
  if (!capabilities.mcp.transports.includes("http")) {
    throw new AdaptorError(`driver ${type} does not support MCP transport http, which host tools need`, {
      sentinel: ErrTransportUnsupported,
    });
  }
  const declared = prep.request.mcpServers ?? [];
  if (declared.some((server) => server.name === HOST_TOOL_SERVER_NAME)) {
    throw new AdaptorError(`MCP server name ${JSON.stringify(HOST_TOOL_SERVER_NAME)} is reserved for host tools`, {
      sentinel: ErrInvalidConfig,
    });
  }
  checkHostToolMatchers(prep.options.hooks, new Set(byName.keys()), HOST_TOOL_SERVER_NAME, new Set(declared.map((server) => server.name)));

  const calls: HostCall[] = [];
  const denials: PermissionDenial[] = [];
  const sendsCallIds = capabilities.mcp.callIds === true;
  let refusals = 0;
  const grant = await binding.open(
    {
      tools: [...byName.values()].map(toSpec),
      async call(call): Promise<HostToolReply> {
        const tool = byName.get(call.name);
        if (!tool) return { text: `unknown_tool: no tool named ${JSON.stringify(call.name)}`, isError: true };
        // Only a call the run's agent made runs: the id the CLI sent must be a reported call of this
        // tool with these arguments (its event waited for, so the call's approval, notices and result
        // follow it), else (a CLI that sends no ids) a reported call of this tool with these arguments
        // is claimed; each once. A request without an id where the CLI always sends one, and anything
        // else, is from a process that read the run's token, which no hook or approval ever saw.
        const matched =
          call.toolCallId !== undefined
            ? (await binding.callIds.reported(call.toolCallId, tool.name, call.arguments, call.signal))
              ? call.toolCallId
              : undefined
            : sendsCallIds
              ? undefined
              : await binding.callIds.claim(tool.name, call.arguments, call.signal);
        if (matched === undefined) {
          if (refusals++ < MAX_REFUSED_NOTICES) {
            binding.queue.push({
              type: "notice",
              kind: "host-tool.refused",
              message: `a call of host tool ${tool.name} that the agent did not make was refused`,
              data: { tool: tool.name, ...(call.toolCallId !== undefined ? { toolCallId: call.toolCallId } : {}) },
            });
          }
          return { text: UNMADE_TEXT, isError: true };
        }
        // From here the CLI waits on the host: the run's stall watchdog does not count this time
        // (until the call settles, or the CLI gave up on it).
        return binding.serve(async () => {
          const toolCallId = matched;
          const parentToolCallId = binding.callIds.parentOf(matched);
          const result = (output: string, isError: boolean): void => {
            binding.queue.push({
              type: "tool-result",
              id: toolCallId,
              name: tool.name,
              output,
              isError,
              ...(parentToolCallId !== undefined ? { parentToolCallId } : {}),
            });
            binding.callIds.answered(matched);
          };
          const notice = (kind: string, message?: string, data?: Readonly<Record<string, unknown>>): void => {
            if (typeof kind !== "string" || kind === "") return;
            binding.queue.push({
              type: "notice",
              kind,
              ...(typeof message === "string" ? { message } : {}),
              ...(data !== undefined ? { data: { ...data, toolCallId, tool: tool.name } } : { data: { toolCallId, tool: tool.name } }),
            });
          };
          // The run's beforeToolCall hooks, asked here: the CLI's own hook path leaves host tools to this gate.
          let args = call.arguments;
          const hooked = await askHooks(prep, {
            point: "beforeToolCall",
            toolCallId,
            ...(parentToolCallId !== undefined ? { parentToolCallId } : {}),
            toolName: binding.callIds.agentNameOf(toolCallId) ?? `mcp__${HOST_TOOL_SERVER_NAME}__${tool.name}`,
            input: args === undefined || args === null ? {} : args,
          });
          if (hooked.deny !== undefined) {
            denials.push({ toolName: tool.name, toolCallId, input: args === undefined || args === null ? {} : args });
            result(hooked.deny, true);
            return { text: hooked.deny, isError: true };
          }
          if (hooked.updatedInput !== undefined) args = hooked.updatedInput;
          const gate = await approve(prep, tool, args, toolCallId, parentToolCallId);
          if (gate.outcome === "deny") {
            denials.push({
              toolName: tool.name,
              toolCallId,
              input: args === undefined || args === null ? {} : args,
            });
            const text = `permission_denied: ${gate.reason}`;
            result(text, true);
            return { text, isError: true };
          }
          const outcome = await invokeTool(tool, gate.input, {
            signal: call.signal,
            runId: binding.runId,
            ...(binding.threadKey !== undefined ? { threadKey: binding.threadKey } : {}),
            toolCallId,
            notice,
          });
          const hostText = hostView(outcome);
          calls.push({ toolCallId, tool: tool.name, outcome, hostText });
          result(hostText, outcome.kind !== "success");
          // A hook's additionalContext reaches the model with the call's result, as PreToolUse's does.
          const context = hooked.additionalContext;
          return {
            text: context === undefined ? outcome.modelText : `${outcome.modelText}\n\n${context}`,
            isError: outcome.kind !== "success",
            ...(outcome.kind === "success" && outcome.structured ? { structuredContent: outcome.structured } : {}),
          };
        }, call.signal);
      },
    },
    prep.signal,
  );
  prep.onCleanup(() => grant.release());
  const entry: McpServerConfig = {
    name: HOST_TOOL_SERVER_NAME,
    transport: "http",
    url: grant.url,
    headers: grant.headers,
    required: true,
    // The CLI runs these unasked: the SDK's server applies the run's permission mode to each call itself.
    trusted: true,
    // Trust goes by these exact names: a prefix would take in a declared server's tools.
    tools: [...byName.keys()],
  };
  prep.request = { ...prep.request, mcpServers: [...declared, entry] };
  prep.onResponse((response) => withHostDenials(withHostFailures(response, calls), denials));
}

/** `host-tool.refused` notices a run emits at most; further refusals are answered without one. */
const MAX_REFUSED_NOTICES = 32;

/** What the model reads for a request that is no call the run's agent made. */
const UNMADE_TEXT = "permission_denied: this call was not made by the agent of this run";

/**
 * The run's `beforeToolCall` verdict on one host-tool call: empty without such a hook; a deny when
 * the run has one but its hooks are not ready (fail closed).
 */
function askHooks(prep: Preparation, ask: Extract<HookAsk, { readonly point: "beforeToolCall" }>): Promise<HookAnswer> {
  if (prep.options.hooks?.beforeToolCall === undefined) return Promise.resolve({});
  if (!prep.hostToolHooks) return Promise.resolve({ deny: "the run's hooks are not ready" });
  return prep.hostToolHooks(ask);
}

/**
 * The run's permission gate for one host-tool call: `needsApproval: false` or an `inherit` mode
 * (without `needsApproval: true`) runs it; otherwise the run's approvals decide it as they do a
 * CLI's ask (`toolName` the tool's name, `input` its arguments, the edit of an approve replacing
 * them and validated by the tool's schema like any input).
 */
async function approve(
  prep: Preparation,
  tool: Tool,
  args: unknown,
  toolCallId: string,
  parentToolCallId: string | undefined,
): Promise<{ readonly outcome: "run"; readonly input: unknown } | { readonly outcome: "deny"; readonly reason: string }> {
  const approvals = prep.approvals;
  if (!approvals || tool.needsApproval === false) return { outcome: "run", input: args };
  if (approvals.permission === "inherit" && tool.needsApproval !== true) return { outcome: "run", input: args };
  const input = args === undefined || args === null ? {} : args;
  const ask: ApprovalAsk = {
    kind: "permission",
    title: `${tool.name}: ${summary(input)}`,
    toolName: tool.name,
    toolCallId,
    ...(parentToolCallId !== undefined ? { parentToolCallId } : {}),
    input,
    details: { hostTool: true },
    inputEditable: true,
  };
  const decision = await (prep.telemetry ? prep.telemetry.approval(ask, () => approvals.ask(ask)) : approvals.ask(ask));
  if (decision.outcome === "approve") return { outcome: "run", input: decision.updatedInput ?? input };
  return { outcome: "deny", reason: decision.outcome === "deny" ? decision.reason : "not approved" };
}

/** The input as one short line for an approval title. */
function summary(input: unknown): string {
  const text = JSON.stringify(input) ?? "";
  return text.length > 120 ? `${text.slice(0, 119)}…` : text;
}

function toSpec(tool: Tool): HostToolSpec {
  const { title, readOnly, destructive, idempotent, openWorld } = tool.annotations;
  const annotations = {
    ...(title !== undefined ? { title } : {}),
    ...(readOnly !== undefined ? { readOnlyHint: readOnly } : {}),
    ...(destructive !== undefined ? { destructiveHint: destructive } : {}),
    ...(idempotent !== undefined ? { idempotentHint: idempotent } : {}),
    ...(openWorld !== undefined ? { openWorldHint: openWorld } : {}),
  };
  return {
    name: tool.name,
    description: tool.description,
    inputSchema: tool.inputSchema ?? { type: "object" },
    ...(tool.outputSchema?.type === "object" ? { outputSchema: tool.outputSchema } : {}),
    ...(Object.keys(annotations).length ? { annotations } : {}),
  };
}

/** The host's text for an outcome: what the model saw, except failures, which keep the full error. */
function hostView(outcome: ToolOutcome): string {
  switch (outcome.kind) {
    case "success":
    case "rejected":
      return outcome.modelText;
    case "invalid_input":
    case "invalid_output":
      return describeError(outcome.error);
    case "failed":
      return describeError(outcome.error);
  }
}

/** `Name: message`, then each `cause` the same way, joined by `" <- "`. */
function describeError(error: unknown): string {
  const parts: string[] = [];
  const seen = new Set<unknown>();
  for (let node: unknown = error; node !== undefined && node !== null && !seen.has(node) && parts.length < 8;) {
    seen.add(node);
    parts.push(node instanceof Error ? `${node.name}: ${node.message}` : String(node));
    node = node instanceof Error ? node.cause : undefined;
  }
  return parts.join(" <- ");
}

/**
 * Adds the calls the run's `beforeToolCall` hooks or permission gate refused to the driver's `permissionDenials`, once each
 * (a call the CLI already lists is not added again), each under the name the transcript's
 * `tool-call` item gives it (as the model saw it, e.g. `mcp__adaptor__lookup`), in the order of
 * the transcript's tool calls. A driver that reports no denials (`undefined`) is left so.
 */
function withHostDenials(response: DriverResponse, denials: readonly PermissionDenial[]): DriverResponse {
  const reported = response.permissionDenials;
  if (denials.length === 0 || reported === undefined) return response;
  const listed = new Set(reported.map((denial) => denial.toolCallId));
  const added = denials.filter((denial) => !listed.has(denial.toolCallId));
  if (added.length === 0) return response;
  const calls = new Map<string, { readonly at: number; readonly name: string | undefined }>();
  response.transcript.forEach((item, at) => {
    if (item.kind === "tool-call" && item.toolCallId !== undefined && !calls.has(item.toolCallId)) {
      calls.set(item.toolCallId, { at, name: item.toolName });
    }
  });
  const position = (denial: PermissionDenial): number => calls.get(denial.toolCallId)?.at ?? Number.MAX_SAFE_INTEGER;
  const named = added.map((denial) => ({ ...denial, toolName: calls.get(denial.toolCallId)?.name ?? denial.toolName }));
  // A stable sort: denials of calls missing from the transcript keep their order, at the end.
  const permissionDenials = [...reported, ...named].sort((a, b) => position(a) - position(b));
  return { ...response, permissionDenials };
}

/** Adds a host-view transcript item after the CLI's item of each failed call (or at the end). */
function withHostFailures(response: DriverResponse, calls: readonly HostCall[]): DriverResponse {
  const failed = calls.filter((call) => call.outcome.kind !== "success" && call.outcome.kind !== "rejected");
  if (failed.length === 0) return response;
  const transcript: TranscriptItem[] = [...response.transcript];
  for (const call of failed) {
    const item: TranscriptItem = {
      kind: "tool-result",
      toolCallId: call.toolCallId,
      toolName: call.tool,
      text: call.hostText,
      isError: true,
    };
    let at = -1;
    for (let i = transcript.length - 1; i >= 0; i--) {
      if (transcript[i]?.kind === "tool-result" && transcript[i]?.toolCallId === call.toolCallId) {
        at = i;
        break;
      }
    }
    if (at === -1) transcript.push(item);
    else transcript.splice(at + 1, 0, item);
  }
  return { ...response, transcript };
}
