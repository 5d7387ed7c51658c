/** MCP tool annotations (hints for the agent), in the protocol's own names. */
export interface HostToolAnnotations {
  /** Title for people. */
  readonly title?: string;
  /** The tool does not change its environment. */
  readonly readOnlyHint?: boolean;
  /** The tool may destroy or overwrite data. */
  readonly destructiveHint?: boolean;
  /** Calling it again with the same input has no further effect. */
  readonly idempotentHint?: boolean;
  /** The tool reaches outside systems (network, services). */
  readonly openWorldHint?: boolean;
}

/** A tool as the host-tool server lists it (`tools/list`). */
export interface HostToolSpec {
  /** Name the CLI calls; Claude shows it to the model as `mcp__<server name>__<name>`. */
  readonly name: string;
  /** What the tool does, for the model. */
  readonly description: string;
  /** JSON Schema of the arguments; its root is `type: "object"`. */
  readonly inputSchema: Readonly<Record<string, unknown>>;
  /** JSON Schema of `structuredContent`, when the tool declares one (root `type: "object"`). */
  readonly outputSchema?: Readonly<Record<string, unknown>>;
  /** MCP tool annotations (hints for the client). */
  readonly annotations?: HostToolAnnotations;
}

/** One `tools/call` the server received on an authenticated session. */
export interface HostToolCall {
  /** The tool's name as listed. */
  readonly name: string;
  /** The arguments as sent (not validated: the session validates). */
  readonly arguments: unknown;
  /**
   * The CLI's id of the call when it sends one: Claude Code's `_meta["claudecode/toolUseId"]`
   * (e.g. `"toolu_1"`), Codex's `_meta.callId` (e.g. `"call_3"`); the same id as the call's
   * `tool-call` event. `undefined` when the CLI sends none.
   */
  readonly toolCallId: string | undefined;
  /** Aborted when the client cancels the request, the session is revoked, or the server closes. */
  readonly signal: AbortSignal;
}

/** What the model receives for a call: one text block, the error flag, optional structured content. */
export interface HostToolReply {
  /** The text the model sees. */
  readonly text: string;
  /** True when the call failed. */
  readonly isError: boolean;
  /** The structured result, for tools with an output schema. */
  readonly structuredContent?: Readonly<Record<string, unknown>>;
}

/** The tools one grant exposes and how their calls are answered. */
export interface HostToolSession {
  /** The tools this session serves. */
  readonly tools: readonly HostToolSpec[];
  /**
   * Answers one call. Should not throw; if it does, the model gets a generic error text and the
   * thrown value goes to the server's `onError`, never into the reply.
   */
  call(call: HostToolCall): Promise<HostToolReply>;
}

/** Access to one session: the bearer token that unlocks it. Revoke it when the run ends. */
export interface HostToolGrant {
  /** The MCP endpoint, e.g. `http://127.0.0.1:41234/mcp`. */
  readonly url: string;
  /** Random bearer token (256 bits, base64url) of this grant only. */
  readonly token: string;
  /** `{ Authorization: "Bearer <token>" }`, for the CLI's MCP config. */
  readonly headers: Readonly<Record<string, string>>;
  /** Ends the grant: its token gets 401 from now on and its in-flight calls are aborted. Idempotent. */
  revoke(): void;
}
