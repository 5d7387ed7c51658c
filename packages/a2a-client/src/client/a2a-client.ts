import { randomUUID } from "node:crypto";
import type { AgentCard, AgentInterface, Message, Part, StreamResponse, Task } from "@a2a-js/sdk";
import type { Client } from "@a2a-js/sdk/client";
import { AdaptorError, DriverError, ErrCode, isError } from "@adaptor/errors";
import { ProtocolError } from "../errors/protocol-error.js";
import { redactCredentials } from "../errors/sanitize.js";
import { ErrInvalidAgentCard, ErrNotFound, ErrUnauthorized, ErrUnsupported, ErrUntrustedOrigin } from "../errors/sentinels.js";
import { StreamRecoveryError } from "../errors/stream-recovery-error.js";
import { agentUrl, urlSecrets } from "./agent-url.js";
import { classify } from "./classify.js";
import { boundedFetch, DEFAULT_MAX_RESPONSE_BYTES, readBounded } from "./bounded-body.js";
import { DEFAULT_MAX_REDIRECTS, guardedFetch, originOf } from "./trust.js";
import { isFinalState, isInterruptedState, type A2AStreamEvent } from "./stream-event.js";
import { ROLE_USER, TASK_STATE, a2aSdk } from "./protocol-values.js";

/** Where a card is looked up, below the URL given to {@link A2AClient.connect}, when that URL is not itself a card. */
export const AGENT_CARD_PATH = "/.well-known/agent-card.json";

/** Default number of resubscriptions a stream attempts after a disconnect. */
export const DEFAULT_RECOVERY_ATTEMPTS = 3;

/** Default pause before the first resubscription, in milliseconds; each next attempt waits one more such step. */
export const DEFAULT_RECOVERY_DELAY_MS = 250;

/** Default deadline of {@link A2AClient.connect} (fetching and reading the agent card), in milliseconds. */
export const DEFAULT_CONNECT_TIMEOUT_MS = 30_000;

/**
 * The largest agent card {@link A2AClient.connect} reads, in bytes of its body (1 MiB; a card is a
 * few KB): a longer one is refused as soon as the limit is passed, or at once when its
 * `Content-Length` says so.
 */
export const MAX_AGENT_CARD_BYTES = 1024 * 1024;

/** The credential values each client sends, for redacting remote text outside the class (delegation messages). */
const SECRETS = new WeakMap<A2AClient, readonly string[]>();

/** The credential values `client` sends (its header values), to redact from text a remote sent. */
export function secretsOf(client: A2AClient): readonly string[] {
  return SECRETS.get(client) ?? [];
}

/**
 * How long the remote task's cancel request of a delegation that ended early (past its deadline,
 * aborted, over `maxTextChars`) may take before it is given up, in milliseconds. The request is
 * sent in the background: the delegation does not wait for it.
 */
export const BACKGROUND_CANCEL_TIMEOUT_MS = 5_000;

/** Each client's way to send a cancel request in the background, for delegations outside the class. */
const BACKGROUND_CANCELS = new WeakMap<A2AClient, (taskId: string) => void>();

/**
 * Asks the remote agent to cancel `taskId` without waiting for its answer: for a delegation that
 * has already settled (its deadline passed, its caller aborted, its answer grew too large). The
 * request is given up after {@link BACKGROUND_CANCEL_TIMEOUT_MS} or when the client closes
 * (`close()` waits for it to end); its outcome, failure included, is dropped.
 */
export function cancelInBackground(client: A2AClient, taskId: string): void {
  BACKGROUND_CANCELS.get(client)?.(taskId);
}

/** The interface bindings this client speaks. */
const BINDINGS = ["JSONRPC", "HTTP+JSON"] as const;

/** Options of {@link A2AClient.connect}. */
export interface A2AClientOptions {
  /**
   * Credential headers (e.g. `{ authorization: "Bearer …" }`), sent only to trusted origins: the
   * origin of the URL given to `connect` and those in {@link trustedOrigins}. While any is set, a
   * request to another origin (an interface URL in the card, a redirect) fails with
   * `ErrUntrustedOrigin` before it is sent.
   */
  readonly headers?: Readonly<Record<string, string>>;
  /** More origins (`https://agents.example.com`) that may receive the credential headers. Default: none. */
  readonly trustedOrigins?: readonly string[];
  /** Redirects one request may follow (each hop is checked against the trusted origins). Default 5. */
  readonly maxRedirects?: number;
  /** Consecutive resubscriptions (without a status or artifact event between them) a stream attempts before it fails with `StreamRecoveryError`. Default 3. */
  readonly recoveryAttempts?: number;
  /** Milliseconds before the first resubscription; attempt n waits n times this. Default 250. */
  readonly recoveryDelayMs?: number;
  /** The `fetch` to use. Default: the global `fetch`. */
  readonly fetch?: typeof fetch;
  /** Aborts fetching the card. */
  readonly signal?: AbortSignal;
  /**
   * Deadline of {@link A2AClient.connect} (the card request and reading its body), in
   * milliseconds; then `connect` fails with a `ProtocolError` (op `"agent-card"`) whose cause is a
   * `DriverError` coded `TIMEOUT`. Default 30,000 ({@link DEFAULT_CONNECT_TIMEOUT_MS}).
   */
  readonly connectTimeoutMs?: number;
  /**
   * The largest answer body the client reads, in bytes: a blocking `send`, `getTask`, `cancelTask`,
   * and error bodies (a stream's events are bounded one by one by the SDK, 4 MiB each). A longer
   * answer (or a `Content-Length` over it) is dropped with its connection as soon as the limit is
   * passed, and the call fails with a `ProtocolError` matching `ErrProtocol` whose cause is a
   * `DriverError` coded `RESOURCE_EXHAUSTED`. Default 16 MiB ({@link DEFAULT_MAX_RESPONSE_BYTES}).
   */
  readonly maxResponseBytes?: number;
}

/** What to send: text, or A2A parts. */
export type MessageInput = string | { readonly parts: readonly Part[]; readonly metadata?: Readonly<Record<string, unknown>> };

/** Options of one send or stream. */
export interface SendOptions {
  /** Continue this conversation (`Task.contextId`). */
  readonly contextId?: string;
  /** Continue this task (e.g. answer an `input-required` task). */
  readonly taskId?: string;
  /** Aborts the request; for a stream, also the recovery. */
  readonly signal?: AbortSignal;
}

/**
 * An A2A client (protocol 1.0, JSON-RPC or HTTP+JSON binding) on the official `@a2a-js/sdk`
 * client, with this SDK's rules: credentials only to trusted origins, typed errors
 * (`ProtocolError` carrying `ErrUnauthorized`, `ErrNotFound`, `ErrUnsupported`,
 * `ErrUntrustedOrigin`, or `ErrProtocol`), and streams that survive a disconnect by resubscribing
 * to their task.
 *
 * @example
 * await using client = await A2AClient.connect("https://agents.example.com", {
 *   headers: { authorization: `Bearer ${token}` },
 * });
 * for await (const event of client.stream("Summarise the open issues")) {
 *   if (event.kind === "status-update") console.log(event.state, event.text);
 * }
 */
export class A2AClient {
  /** The agent card, as fetched and checked. */
  readonly card: AgentCard;
  /** The interface in use: its URL and binding (`"JSONRPC"` or `"HTTP+JSON"`). */
  readonly agentInterface: Readonly<AgentInterface>;
  readonly #sdk: Client;
  readonly #secrets: readonly string[];
  readonly #attempts: number;
  readonly #delayMs: number;
  readonly #closing = new AbortController();
  /** Cancel requests sent in the background and not ended yet (they never reject). */
  readonly #backgroundCancels = new Set<Promise<void>>();

  private constructor(card: AgentCard, agentInterface: AgentInterface, sdk: Client, secrets: readonly string[], options: A2AClientOptions) {
    this.card = card;
    this.agentInterface = Object.freeze({ ...agentInterface });
    this.#sdk = sdk;
    this.#secrets = secrets;
    SECRETS.set(this, secrets);
    BACKGROUND_CANCELS.set(this, (taskId) => this.#cancelInBackground(taskId));
    this.#attempts = options.recoveryAttempts ?? DEFAULT_RECOVERY_ATTEMPTS;
    this.#delayMs = options.recoveryDelayMs ?? DEFAULT_RECOVERY_DELAY_MS;
  }

  /**
   * Fetches the agent card at `url` (the card itself when the path ends in `.json`, else
   * `<url>/.well-known/agent-card.json`: at the origin's root for a bare origin, below the path of
   * an agent mounted under one), checks it, selects the first JSON-RPC or
   * HTTP+JSON interface and makes a client for it.
   *
   * @throws ProtocolError (op `"agent-card"`) matching `ErrInvalidAgentCard` (not JSON, missing
   *   name or interfaces, a malformed interface URL, HTTP 404), `ErrUnsupported` (no interface
   *   this client speaks), `ErrUntrustedOrigin` (credentials set and the card's interface, or a
   *   redirect, is on another origin), `ErrUnauthorized` (HTTP 401/403), `ErrInvalidAgentCard`
   *   with a `DriverError` coded `RESOURCE_EXHAUSTED` as its cause (`errorCode(err)`) for a body
   *   over {@link MAX_AGENT_CARD_BYTES}, or, when no card arrived
   *   within `connectTimeoutMs`, none of them: its cause is a `DriverError` coded `TIMEOUT`
   *   (`errorCode(err) === ErrCode.Timeout`); the signal's reason when `signal` aborts;
   *   `InvalidOptionError` (field `url`) for a `url` with credentials in it (`user:password@`;
   *   send them in `headers`); a `TypeError` for another bad `url` or option.
   */
  static async connect(url: string, options: A2AClientOptions = {}): Promise<A2AClient> {
    const cardUrl = agentUrl(url, "A2AClient.connect()");
    if (!cardUrl.pathname.endsWith(".json")) cardUrl.pathname = cardUrl.pathname.replace(/\/+$/, "") + AGENT_CARD_PATH;
    const credentials = { ...(options.headers ?? {}) };
    const trusted = new Set([cardUrl.origin, ...(options.trustedOrigins ?? []).map((origin) => originOf(origin))]);
    // A credential in the card URL's query (`?api_key=…`) is redacted like the header values.
    const secrets = [...Object.values(credentials), ...urlSecrets(cardUrl)];
    const fetchImpl = guardedFetch({
      base: options.fetch ?? globalThis.fetch,
      credentials,
      trusted,
      maxRedirects: options.maxRedirects ?? DEFAULT_MAX_REDIRECTS,
    });
    const maxResponseBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
    if (!Number.isSafeInteger(maxResponseBytes) || maxResponseBytes <= 0)
      throw new TypeError(`maxResponseBytes must be a positive integer, got ${maxResponseBytes}`);
    const op = "agent-card";
    const timeoutMs = options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
    if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) throw new TypeError(`connectTimeoutMs must be a positive number, got ${timeoutMs}`);
    const deadline = AbortSignal.timeout(timeoutMs);
    const signal = options.signal ? AbortSignal.any([options.signal, deadline]) : deadline;
    let raw: unknown;
    let text = "";
    try {
      const response = await fetchImpl(cardUrl, { headers: { accept: "application/json", "a2a-version": "1.0" }, signal });
      text = await cardText(response, secrets);
      if (!response.ok) throw invalidCard(`HTTP ${response.status} for ${cardUrl.href}`, text, secrets);
      raw = JSON.parse(text) as unknown;
    } catch (error) {
      if (options.signal?.aborted) throw options.signal.reason;
      if (deadline.aborted) {
        throw new ProtocolError({
          op,
          reason: `no agent card from ${cardUrl.href} within ${timeoutMs} ms`,
          cause: new DriverError({ op, device: "a2a", code: ErrCode.Timeout, cause: `no answer within ${timeoutMs} ms` }),
          secrets,
        });
      }
      if (error instanceof SyntaxError) throw invalidCard("the card is not JSON", text, secrets);
      throw classify(op, error, secrets, options.signal);
    }
    const [{ AgentCard }, { ClientFactory, ClientFactoryOptions, JsonRpcTransportFactory, RestTransportFactory }] = await a2aSdk();
    const card = checkCard(raw, text, secrets, AgentCard);
    const selected = card.supportedInterfaces.find((candidate) => (BINDINGS as readonly string[]).includes(candidate.protocolBinding));
    if (!selected) {
      throw new ProtocolError({
        op,
        reason: `no interface this client speaks (${BINDINGS.join(", ")}); the card offers ${card.supportedInterfaces.map((i) => i.protocolBinding).join(", ")}`,
        cause: new AdaptorError("no supported A2A interface", { sentinel: ErrUnsupported }),
        secrets,
      });
    }
    if (Object.keys(credentials).length > 0 && !trusted.has(new URL(selected.url).origin)) {
      throw new ProtocolError({
        op,
        reason: `the card's interface ${new URL(selected.url).origin} is not a trusted origin`,
        cause: new AdaptorError(`refusing to send credentials to ${new URL(selected.url).origin}: not a trusted origin`, {
          sentinel: ErrUntrustedOrigin,
        }),
        secrets,
      });
    }
    const answersOf = boundedFetch(fetchImpl, maxResponseBytes);
    const factory = new ClientFactory(
      ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
        transports: [new JsonRpcTransportFactory({ fetchImpl: answersOf }), new RestTransportFactory({ fetchImpl: answersOf })],
        preferredTransports: [selected.protocolBinding as (typeof BINDINGS)[number]],
      }),
    );
    const sdk = await factory.createFromAgentCard({ ...card, supportedInterfaces: [selected] });
    return new A2AClient(card, selected, sdk, secrets, options);
  }

  /**
   * Sends a message and waits (blocking send) for the task to reach a final or interrupted state,
   * or for the agent's direct reply.
   *
   * @returns the `Task` (any final state, `input-required`, `auth-required`) or a `Message`.
   * @throws ProtocolError (op `"message/send"`), matching `ErrProtocol` when a message continuing
   *   `taskId` is answered with another task; the signal's reason when aborted.
   */
  async send(input: MessageInput, options: SendOptions = {}): Promise<Task | Message> {
    const signal = this.#signal(options.signal);
    let answer: Task | Message;
    try {
      answer = await this.#sdk.sendMessage(request(input, options), { signal });
    } catch (error) {
      throw classify("message/send", error, this.#secrets, signal);
    }
    const answered = "parts" in answer ? answer.taskId : answer.id;
    if (options.taskId && answered && answered !== options.taskId) throw this.#otherTask("message/send", options.taskId, answered);
    return answer;
  }

  /**
   * Sends a message and streams the task's events until a final or interrupted state (or the
   * agent's direct `message`). The state that ends the stream is the one a status update reports:
   * a message on a waiting task (`{ taskId }`, e.g. an approval answer) usually first gets a
   * snapshot of the task still `input-required`, and the stream goes on through the continued
   * run to its next stop; such a snapshot is final only when the remote ends the stream after it.
   * When the connection drops after the task is known, the stream
   * resubscribes to the task (up to `recoveryAttempts` times in a row) and yields a `recovered` event
   * before the resumed events; a task that finished meanwhile is read once with `tasks/get`.
   * Breaking out of the loop closes the connection (the remote task keeps running; cancel it with
   * {@link cancelTask}).
   *
   * @throws ProtocolError (op `"message/stream"`) before the task is known; ProtocolError matching
   *   `ErrProtocol` for an event, or a recovery's answer, naming another task (not recovered);
   *   StreamRecoveryError (`taskId`) when every recovery failed; the signal's reason when aborted.
   */
  async *stream(input: MessageInput, options: SendOptions = {}): AsyncGenerator<A2AStreamEvent, void, undefined> {
    const signal = this.#signal(options.signal);
    yield* this.#follow(
      "message/stream",
      this.#sdk.sendMessageStream(request(input, options), { signal }),
      signal,
      undefined,
      options.taskId || undefined,
    );
  }

  /**
   * Streams the events of a running task, from a snapshot of its current state, with the same
   * recovery as {@link stream}.
   *
   * @throws ProtocolError (op `"tasks/resubscribe"`) matching `ErrNotFound` (no such task) or
   *   `ErrUnsupported` (the task already finished, or the agent does not stream).
   */
  async *resubscribe(taskId: string, options: { readonly signal?: AbortSignal } = {}): AsyncGenerator<A2AStreamEvent, void, undefined> {
    const signal = this.#signal(options.signal);
    yield* this.#follow("tasks/resubscribe", this.#sdk.resubscribeTask({ tenant: "", id: taskId }, { signal }), signal, taskId, taskId);
  }

  /**
   * The task's current state.
   *
   * @throws ProtocolError (op `"tasks/get"`) matching `ErrNotFound` for an unknown task, or
   *   `ErrProtocol` when the remote answers with another task.
   */
  async getTask(taskId: string, options: { readonly signal?: AbortSignal; readonly historyLength?: number } = {}): Promise<Task> {
    const signal = this.#signal(options.signal);
    let task: Task;
    try {
      task = await this.#sdk.getTask(
        { tenant: "", id: taskId, ...(options.historyLength !== undefined ? { historyLength: options.historyLength } : {}) },
        { signal },
      );
    } catch (error) {
      throw classify("tasks/get", error, this.#secrets, signal);
    }
    if (task.id !== taskId) throw this.#otherTask("tasks/get", taskId, task.id);
    return task;
  }

  /**
   * Asks the agent to cancel the task and returns its state after the request.
   *
   * @throws ProtocolError (op `"tasks/cancel"`) matching `ErrNotFound` (unknown task),
   *   `ErrUnsupported` (the task cannot be canceled, e.g. it already finished) or `ErrProtocol`
   *   (the remote answers with another task).
   */
  async cancelTask(taskId: string, options: { readonly signal?: AbortSignal } = {}): Promise<Task> {
    const signal = this.#signal(options.signal);
    let task: Task;
    try {
      task = await this.#sdk.cancelTask({ tenant: "", id: taskId, metadata: undefined }, { signal });
    } catch (error) {
      throw classify("tasks/cancel", error, this.#secrets, signal);
    }
    if (task.id !== taskId) throw this.#otherTask("tasks/cancel", taskId, task.id);
    return task;
  }

  /**
   * Aborts every request and stream of this client, and resolves once the cancel requests a
   * delegation left running in the background have ended. Idempotent.
   */
  async close(): Promise<void> {
    this.#closing.abort(new AdaptorError("A2A client closed"));
    await Promise.all(this.#backgroundCancels);
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  #cancelInBackground(taskId: string): void {
    if (this.#closing.signal.aborted) return;
    const limit = new AbortController();
    const timer = setTimeout(
      () => limit.abort(new AdaptorError(`no answer to the cancel request within ${BACKGROUND_CANCEL_TIMEOUT_MS} ms`)),
      BACKGROUND_CANCEL_TIMEOUT_MS,
    );
    // Only the request holds the process open, not its time limit.
    timer.unref();
    const pending: Promise<void> = this.cancelTask(taskId, { signal: limit.signal })
      .then(
        () => undefined,
        () => undefined,
      )
      .finally(() => {
        clearTimeout(timer);
        this.#backgroundCancels.delete(pending);
      });
    this.#backgroundCancels.add(pending);
  }

  /** The refusal (`ErrProtocol`) of an answer about task `answered` to a request about task `asked`. */
  #otherTask(op: string, asked: string, answered: string): ProtocolError {
    return new ProtocolError({ op, reason: `an answer about task ${answered} to a request about task ${asked}`, secrets: this.#secrets });
  }

  #signal(signal: AbortSignal | undefined): AbortSignal {
    return signal ? AbortSignal.any([signal, this.#closing.signal]) : this.#closing.signal;
  }

  async *#follow(
    op: string,
    first: AsyncGenerator<StreamResponse, void, undefined>,
    signal: AbortSignal,
    knownTaskId: string | undefined,
    continuedTaskId: string | undefined,
  ): AsyncGenerator<A2AStreamEvent, void, undefined> {
    let source = first;
    let taskId = knownTaskId;
    /** The task this stream is about (the spec: one task's lifecycle per stream); an event of another is refused. */
    let owner = continuedTaskId;
    /** The refusal of an event naming another task: not mended by resubscribing. */
    let foreign: ProtocolError | undefined;
    /** Resubscriptions since the stream last made progress (a status or artifact event). */
    let attempts = 0;
    /** The current source is a resubscription made by this loop. */
    let resubscribed = false;
    let lastCause: unknown;
    for (;;) {
      let lost: unknown;
      /** A `task` snapshot in an interrupted state, yielded once the next event shows whether it is the last. */
      let held: Extract<A2AStreamEvent, { kind: "task" }> | undefined;
      try {
        for await (const response of source) {
          const event = toEvent(response);
          if (!event)
            throw new ProtocolError({
              op,
              reason: "stream event without a payload",
              raw: JSON.stringify(response),
              secrets: this.#secrets,
            });
          owner ??= event.taskId;
          if (event.taskId !== undefined && event.taskId !== owner) {
            throw (foreign = new ProtocolError({
              op,
              reason: `an event of task ${event.taskId} on the stream of task ${owner}`,
              raw: JSON.stringify(response),
              secrets: this.#secrets,
            }));
          }
          taskId ??= event.taskId;
          if (event.kind !== "task") attempts = 0;
          if (held) {
            yield { ...held, final: false };
            held = undefined;
          }
          if (!resubscribed && op === "message/stream" && event.kind === "task" && event.final && isInterruptedState(event.state)) {
            // A snapshot: the task was waiting when this message arrived (the message answers it).
            // Only a status update ends a message stream, as on the server; the snapshot is the
            // last word only when the remote closes the stream right after it. (A resubscription's
            // snapshot of a waiting task is its last word: the server keeps that stream open.)
            held = event;
            continue;
          }
          yield event;
          if (event.final) return;
        }
        if (held) {
          yield held;
          return;
        }
        lost = new ProtocolError({ op, reason: "the stream ended before the task reached a final state", secrets: this.#secrets });
      } catch (error) {
        if (signal.aborted) throw signal.reason;
        const classified = classify(resubscribed ? "tasks/resubscribe" : op, error, this.#secrets, signal);
        if (resubscribed && taskId !== undefined && isError(classified, ErrUnsupported)) {
          // The task reached a final state while we were away: read it once.
          const task = await this.getTask(taskId, { signal });
          const event = toEvent({ payload: { $case: "task", value: task } });
          if (event) yield event;
          return;
        }
        // Resubscribing cannot mend a refused credential, an unknown task or an unsupported request.
        const fatal =
          error === foreign ||
          [ErrUnauthorized, ErrUntrustedOrigin, ErrInvalidAgentCard, ErrNotFound, ErrUnsupported].some((category) =>
            isError(classified, category),
          );
        if (taskId === undefined || fatal) {
          // Another task's event is the remote's protocol violation, whichever request it answers.
          if (!resubscribed || error === foreign) throw classified;
          throw new StreamRecoveryError(taskId ?? "", classified, attempts);
        }
        lost = classified;
      }
      if (taskId === undefined) throw lost;
      lastCause = lost;
      if (attempts >= this.#attempts) throw new StreamRecoveryError(taskId, lastCause, attempts);
      attempts++;
      await pause(this.#delayMs * attempts, signal);
      yield { kind: "recovered", taskId, attempt: attempts, cause: lastCause, final: false };
      resubscribed = true;
      source = this.#sdk.resubscribeTask({ tenant: "", id: taskId }, { signal });
    }
  }
}

/**
 * The body of a card response, read up to {@link MAX_AGENT_CARD_BYTES}.
 * @throws ProtocolError `ErrInvalidAgentCard` (cause coded `RESOURCE_EXHAUSTED`) past the limit,
 * the body's request cancelled.
 */
async function cardText(response: Response, secrets: readonly string[]): Promise<string> {
  const { bytes, complete } = await readBounded(response, MAX_AGENT_CARD_BYTES);
  if (!complete) {
    const reason = `the card is larger than ${MAX_AGENT_CARD_BYTES} bytes`;
    const cause = new DriverError(
      { op: "agent-card", device: "a2a", code: ErrCode.ResourceExhausted, cause: reason },
      { sentinel: ErrInvalidAgentCard },
    );
    throw new ProtocolError({ op: "agent-card", reason, cause, secrets });
  }
  return new TextDecoder().decode(bytes);
}

function invalidCard(reason: string, raw: string, secrets: readonly string[]): ProtocolError {
  // The reason may name the card URL, and so a credential in its query: the cause's message is redacted too.
  const cause = new AdaptorError(redactCredentials(reason, secrets), { sentinel: ErrInvalidAgentCard });
  return new ProtocolError({ op: "agent-card", reason, cause, raw, secrets });
}

/** The card as the SDK's type, after the checks this client relies on. */
function checkCard(
  raw: unknown,
  text: string,
  secrets: readonly string[],
  AgentCard: Awaited<ReturnType<typeof a2aSdk>>[0]["AgentCard"],
): AgentCard {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) throw invalidCard("the card is not a JSON object", text, secrets);
  const fields = raw as Record<string, unknown>;
  if (typeof fields["name"] !== "string" || fields["name"].trim() === "") throw invalidCard("the card has no name", text, secrets);
  const interfaces = fields["supportedInterfaces"];
  if (!Array.isArray(interfaces) || interfaces.length === 0) throw invalidCard("the card lists no supportedInterfaces", text, secrets);
  for (const [index, entry] of interfaces.entries()) {
    const item = entry as Record<string, unknown> | null;
    if (typeof item !== "object" || item === null || typeof item["url"] !== "string" || typeof item["protocolBinding"] !== "string") {
      throw invalidCard(`supportedInterfaces[${index}] needs a url and a protocolBinding`, text, secrets);
    }
    if (!(BINDINGS as readonly string[]).includes(item["protocolBinding"])) continue;
    let parsed: URL;
    try {
      parsed = new URL(item["url"]);
    } catch {
      throw invalidCard(`supportedInterfaces[${index}].url is not an absolute URL`, text, secrets);
    }
    if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
      throw invalidCard(`supportedInterfaces[${index}].url must be http or https`, text, secrets);
    }
    if (parsed.username !== "" || parsed.password !== "") {
      throw invalidCard(`supportedInterfaces[${index}].url carries credentials (user:password@)`, text, secrets);
    }
  }
  try {
    return AgentCard.fromJSON(raw);
  } catch (cause) {
    throw new ProtocolError({
      op: "agent-card",
      reason: "the card does not parse",
      cause: new AdaptorError("card does not parse", { sentinel: ErrInvalidAgentCard, cause }),
      raw: text,
      secrets,
    });
  }
}

function request(input: MessageInput, options: SendOptions) {
  const parts: Part[] =
    typeof input === "string"
      ? [{ content: { $case: "text", value: input }, metadata: undefined, filename: "", mediaType: "text/plain" }]
      : [...input.parts];
  if (parts.length === 0) throw new TypeError("an A2A message needs at least one part");
  const message: Message = {
    messageId: randomUUID(),
    contextId: options.contextId ?? "",
    taskId: options.taskId ?? "",
    role: ROLE_USER,
    parts,
    metadata: typeof input === "string" ? undefined : input.metadata ? { ...input.metadata } : undefined,
    extensions: [],
    referenceTaskIds: [],
  };
  return { tenant: "", message, configuration: undefined, metadata: undefined };
}

/** Our event for one SDK stream response, or `undefined` when it carries no payload. */
export function toEvent(response: StreamResponse): A2AStreamEvent | undefined {
  const payload = response.payload;
  switch (payload?.$case) {
    case "task": {
      const task = payload.value;
      const state = task.status?.state ?? TASK_STATE.UNSPECIFIED;
      return { kind: "task", task, taskId: task.id, state, final: isFinalState(state) };
    }
    case "message":
      return { kind: "message", message: payload.value, taskId: payload.value.taskId || undefined, final: true };
    case "statusUpdate": {
      const update = payload.value;
      const state = update.status?.state ?? TASK_STATE.UNSPECIFIED;
      return {
        kind: "status-update",
        update,
        taskId: update.taskId,
        state,
        text: textOf(update.status?.message?.parts ?? []),
        final: isFinalState(state),
      };
    }
    case "artifactUpdate":
      return {
        kind: "artifact-update",
        update: payload.value,
        taskId: payload.value.taskId,
        text: textOf(payload.value.artifact?.parts ?? []),
        final: false,
      };
    default:
      return undefined;
  }
}

/** The text parts of `parts`, joined. */
export function textOf(parts: readonly Part[]): string {
  return parts.map((part) => (part.content?.$case === "text" ? part.content.value : "")).join("");
}

function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener("abort", onAbort, { once: true });
  });
}
