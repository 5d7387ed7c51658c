import { defineTool, reject, type Tool } from "@adaptor/tool";
import { A2AClient, type A2AClientOptions } from "../client/a2a-client.js";
import { agentUrl } from "../client/agent-url.js";
import { redactCredentials } from "../errors/sanitize.js";
import { DelegationError } from "./delegation-error.js";
import { deadlineOf, delegateBy, delegationTimeout, toDelegationError, type DelegationProgress } from "./delegate.js";

/** Options of {@link a2aDelegation}. */
export interface A2ADelegationOptions extends Omit<A2AClientOptions, "signal"> {
  /** The remote agent: its card URL, or its base URL (the card is then read from `/.well-known/agent-card.json`). */
  readonly url: string;
  /** The tool's name, as the model calls it. Default `"delegate"`. */
  readonly name?: string;
  /** What the tool does, for the model. Default: a sentence naming the remote agent's URL. */
  readonly description?: string;
  /**
   * Deadline of one delegation, in milliseconds, from the tool call: connecting (reading the agent
   * card, on the first call) and the remote task; then the remote task is canceled and the model
   * gets `timeout`. Default 600,000 (10 minutes).
   */
  readonly timeoutMs?: number;
  /** The most answer text one delegation holds, in characters (see `DelegateOptions.maxTextChars`). Default 4 Mi. */
  readonly maxTextChars?: number;
}

/** Default deadline of one delegation, in milliseconds. */
export const DEFAULT_DELEGATION_TIMEOUT_MS = 600_000;

/** Notice kinds a delegation adds to the run that called the tool. */
export const DELEGATION_NOTICE = {
  started: "a2a.delegation.started",
  progress: "a2a.delegation.progress",
  finished: "a2a.delegation.finished",
  failed: "a2a.delegation.failed",
} as const;

/**
 * A host tool that hands a sub-task to a remote A2A agent and returns its answer to the local
 * agent. The model calls it with `{ task, contextId? }` and gets `{ taskId, contextId, text }`.
 *
 * The sub-agent's progress appears in the calling run as `notice` events:
 * `a2a.delegation.started` (`data.url`, `data.agent`), `a2a.delegation.progress` (`data.kind`
 * `status`/`artifact`/`recovered`, `data.taskId`, `data.state`, `data.text`),
 * `a2a.delegation.finished` (`data.taskId`) and `a2a.delegation.failed` (the
 * {@link DelegationError}'s `code`, `message`, `retryable`, `remoteStatus`, `metadata`).
 * A failure reaches the model as `"<code>: <message>"` (a tool rejection), so it can react
 * (retry when `retryable`, or report); the run itself goes on.
 *
 * The client connects on the first call and is reused; a failed connection is retried on the next
 * call. Credentials go only to the origins {@link A2AClientOptions} trusts.
 *
 * @throws TypeError for a `url` that is not an absolute http or https URL; InvalidOptionError
 *   (field `url`) for one with credentials in it (`user:password@`: send them in `headers`).
 *
 * @example
 * const reviewer = a2aDelegation({ url: "https://review.example.com", headers: { authorization: `Bearer ${token}` } });
 * await using agent = new Agent(claude({ cwd }), { tools: [reviewer] });
 */
export function a2aDelegation(options: A2ADelegationOptions): Tool {
  const { url, name = "delegate", description, timeoutMs = DEFAULT_DELEGATION_TIMEOUT_MS, maxTextChars, ...clientOptions } = options;
  // A URL the first call could only fail on is refused now.
  agentUrl(url, "a2aDelegation()");
  // What the model and the run's notices see of the URL: a credential in its query redacted.
  const shownUrl = redactCredentials(url);
  let client: A2AClient | undefined;
  // Each call that finds no client connects under its own deadline and signal (so a card that
  // never comes is given up at the call's deadline); the first client made is kept.
  const connect = async (signal: AbortSignal): Promise<A2AClient> => {
    if (client) return client;
    const connected = await A2AClient.connect(url, { ...clientOptions, signal });
    client ??= connected;
    return client;
  };
  return defineTool({
    name,
    description:
      description ??
      `Delegate a self-contained sub-task to the remote agent at ${shownUrl} and get its answer. Describe the task fully: the remote agent sees nothing else.`,
    input: {
      type: "object",
      properties: {
        task: { type: "string", minLength: 1, description: "The complete instruction for the remote agent." },
        contextId: { type: "string", description: "The contextId of an earlier delegation, to continue that conversation." },
      },
      required: ["task"],
      additionalProperties: false,
    },
    annotations: { title: "Delegate to a remote agent", openWorld: true },
    handler: async (input, context) => {
      const { task, contextId } = input as { task: string; contextId?: string };
      const deadline = deadlineOf(timeoutMs);
      try {
        const remote = await connect(AbortSignal.any([context.signal, deadline.signal])).catch((error: unknown) => {
          if (context.signal.aborted) throw error;
          if (deadline.signal.aborted) throw delegationTimeout(timeoutMs, undefined, "agent-card");
          throw toDelegationError(error, undefined);
        });
        context.notice(DELEGATION_NOTICE.started, `delegating to ${remote.card.name}`, { url: shownUrl, agent: remote.card.name });
        const result = await delegateBy(
          remote,
          task,
          {
            signal: context.signal,
            ...(contextId ? { contextId } : {}),
            ...(maxTextChars !== undefined ? { maxTextChars } : {}),
            onProgress: (progress: DelegationProgress) => context.notice(DELEGATION_NOTICE.progress, progress.text, { ...progress }),
          },
          deadline,
        );
        context.notice(DELEGATION_NOTICE.finished, `${remote.card.name} completed task ${result.taskId}`, {
          taskId: result.taskId,
          contextId: result.contextId,
        });
        return { taskId: result.taskId, contextId: result.contextId, text: result.text };
      } catch (error) {
        if (context.signal.aborted || !(error instanceof DelegationError)) throw error;
        context.notice(DELEGATION_NOTICE.failed, error.message, {
          code: error.code,
          message: error.message,
          retryable: error.retryable,
          remoteStatus: error.remoteStatus,
          metadata: error.metadata,
        });
        throw reject(error.code, error.retryable ? `${error.message} (retryable)` : error.message);
      }
    },
  });
}
