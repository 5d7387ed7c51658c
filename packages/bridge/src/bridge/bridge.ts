import type { IncomingMessage, ServerResponse } from "node:http";
import { EventType } from "@ag-ui/core";
import {
  announcesBody,
  closeIfBodyUnread,
  currentSecretEnvValues,
  ErrFeatureUnsupported,
  ErrInvalidThreadKey,
  findError,
  hostAllowed,
  InvalidThreadKeyError,
  isError,
  type ApprovalRequest,
  type RunOptions,
} from "adaptor";
import { answerApproval, decisionOf, parseApprovalAnswer, type BridgeResume } from "../approvals/answer-approval.js";
import { assertWellFormedString, MalformedStringError } from "@adaptor/errors";
import { corsHeaders, originAllowed } from "../http/cors.js";
import { forbiddenHost } from "../http/host-check.js";
import { HttpError, sendError, sendJson } from "../http/http-error.js";
import { readJsonBody } from "../http/read-body.js";
import { AG_UI_CUSTOM_EVENTS, AgUiMapper } from "../protocols/ag-ui.js";
import { parseAgUiInput } from "../protocols/ag-ui-input.js";
import { resumeAnswer } from "../protocols/ag-ui-interrupt.js";
import { checkWireId } from "../protocols/wire-id.js";
import { sseEvent } from "../protocols/frame.js";
import { encodeRaw } from "../protocols/raw.js";
import { parseRawPrompt, sdkPrompt, type WirePrompt, type WirePromptLimits } from "../protocols/wire-prompt.js";
import { RunChannel, type ChannelVerdict } from "../run/run-channel.js";
import { SseConnection } from "../sse/sse-connection.js";
import { FleetFront } from "../fleet/fleet-front.js";
import {
  resolveBridgeOptions,
  type BridgeOptions,
  type BridgeProtocol,
  type BridgeRunContext,
  type BridgeRunner,
  type BridgeSettings,
} from "./bridge-options.js";

interface ChannelEntry {
  readonly channel: RunChannel;
  readonly protocol: BridgeProtocol;
  readonly approvals: Set<string>;
  retention?: NodeJS.Timeout;
}

/** A request handler in the style of Node's `http` (and Express/Connect middleware). */
export type BridgeHandler = (req: IncomingMessage, res: ServerResponse, next?: (error?: unknown) => void) => void;

/** A `.` or `..` path segment (also percent-encoded), or a backslash, in a request's raw path. */
const DOT_SEGMENT_OR_BACKSLASH = /\\|(?:^|\/)(?:\.|%2e){1,2}(?:\/|$)/i;

/**
 * `headers` for a refusal of `req`, with `connection: close` when `req` has no body: such a
 * refusal (403 `forbidden_host`, a 404) closes its connection as one sent before a body is read
 * does (`closeIfBodyUnread`), so a page that counts on a kept socket (DNS rebinding) does not get it.
 */
function closing(req: IncomingMessage, headers: Record<string, string> = {}): Record<string, string> {
  return announcesBody(req) ? headers : { ...headers, connection: "close" };
}

/** The path of `req` as it was sent (before the URL parser resolves its dot segments), without the query. */
function rawPath(req: IncomingMessage): string {
  return (req.url ?? "/").split("?", 1)[0]!;
}

/**
 * Serves a Runner (an `Agent` or a `Thread`) over HTTP with Server-Sent Events. Routes, under
 * `basePath`:
 * - `POST runs`: body `{ "prompt": string | parts, "threadKey"?: string }` (parts: `{ "type": "text", "text" }`
 *   and `{ "type": "image", "data": <base64>, "mimeType" }`, at most `maxImages` of `maxImageBytes`), answered with the run as
 *   SSE in the `raw` protocol (each event as JSON, `id` = its sequence); a `threadKey` for a
 *   runner that is an `Agent` (which runs no thread) is refused with 422 `thread_unsupported`;
 * - `POST ag-ui`: body an AG-UI `RunAgentInput`, answered with AG-UI events as SSE (what
 *   `@ag-ui/client`'s `HttpAgent` consumes);
 * - `GET runs/<key>/events`: reconnect; replays the frames after the `Last-Event-ID` header
 *   from a bounded buffer, then continues live;
 * - `POST approvals/<id>`: body `{ "decision": "approve" | "deny" | "answer", ... }`; 200 with
 *   `{ id, status }`, 404 unknown, 409 already answered, 410 expired, 422 wrong kind;
 * - `POST runs/<key>/cancel`: body `{ "reason"?: string }`; cancels the run (200 `{ key, cancelled }`).
 * - `POST runs/<key>/interrupt`: body `{}`; interrupts the running turn as `stream.interrupt()` does,
 *   keeping the conversation (200 `{ key, interrupted }`, `false` when the run had ended; 422
 *   `interrupt_unsupported` when its agent cannot interrupt, or over a fleet).
 *
 * A path that is not exactly one of these (a trailing slash, an empty segment) is no route: 404,
 * or the next handler when the bridge is used as middleware; one with a dot segment is 400.
 *
 * With `fleet` instead of `runner`, runs go to a fleet's workers and every stream is read from
 * the fleet's stored events: front-ends are stateless and interchangeable (see `fleet`).
 *
 * A client that disconnects and does not reconnect within `reconnectGraceMs` cancels its run
 * (which reaps the CLI); the run ends as cancelled on both protocols. A run waiting on one of
 * its approvals is not cancelled while that approval is pending (its own deadline,
 * `policy.approvals.timeoutMs`, bounds the wait), and an answer gives it a fresh grace. Refusals before a stream
 * starts are JSON `{ error: { code, message } }`. Against DNS rebinding, a request whose `Host` is
 * neither a loopback name on the port it arrived on nor in `allowedHosts` is refused with 403
 * `forbidden_host`. Against cross-site requests, every POST must carry
 * `Content-Type: application/json` (else 415) and a request whose `Origin` is neither the
 * bridge's own nor allowed by `cors` is refused with 403.
 *
 * @example
 * const agent = new Agent(claude({ cwd: "/srv/project" }));
 * const bridge = new Bridge({ runner: agent });
 * http.createServer(bridge.handler).listen(8080, "127.0.0.1");
 * @throws InvalidOptionError from the constructor for refused options.
 */
export class Bridge implements AsyncDisposable {
  readonly #settings: BridgeSettings;
  /** The credential-named variables of `process.env` as they are when a failure or a notice is sent. */
  readonly #secrets = currentSecretEnvValues;
  readonly #channels = new Map<string, ChannelEntry>();
  readonly #retained: string[] = [];
  readonly #approvals = new Map<string, { request: ApprovalRequest; key: string }>();
  readonly #pending = new Set<Promise<void>>();
  readonly #fleet: FleetFront | undefined;
  #closed = false;

  /** The request handler, bound: pass it to `http.createServer`, `app.use(...)` or a framework's Node adapter. */
  readonly handler: BridgeHandler = (req, res, next) => {
    const work = this.#handle(req, res, next).catch((error: unknown) => sendError(res, error, closing(req)));
    this.#track(work);
  };

  constructor(options: BridgeOptions) {
    this.#settings = resolveBridgeOptions(options);
    this.#fleet = this.#settings.fleet
      ? new FleetFront(this.#settings.fleet, this.#settings, this.#secrets, (work) => this.#track(work))
      : undefined;
  }

  /** Runs in flight or still retained (finished, reachable for replay). */
  get size(): number {
    return this.#channels.size;
  }

  /**
   * Stops taking runs (new ones get 503), cancels every run in flight, ends every stream and
   * forgets retained runs. Idempotent; resolves when every run has settled. Over a fleet, runs are
   * not cancelled (they go on in the fleet, served by other front-ends): only the streams end.
   */
  async close(): Promise<void> {
    this.#closed = true;
    this.#fleet?.close();
    for (const entry of this.#channels.values()) entry.channel.cancel(new DOMException("The bridge closed", "AbortError"));
    await Promise.allSettled([...this.#channels.values()].map((entry) => entry.channel.done));
    while (this.#pending.size > 0) await Promise.allSettled([...this.#pending]);
    for (const key of [...this.#channels.keys()]) this.#forget(key);
  }

  /** {@link close}. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  #track(work: Promise<void>): void {
    this.#pending.add(work);
    void work.finally(() => this.#pending.delete(work));
  }

  async #handle(req: IncomingMessage, res: ServerResponse, next: ((error?: unknown) => void) | undefined): Promise<void> {
    const url = new URL(req.url ?? "/", "http://bridge.invalid");
    const base = this.#settings.basePath;
    if (!url.pathname.startsWith(base) && url.pathname !== base.slice(0, -1)) return this.#unmatched(req, res, next);
    const path = url.pathname.slice(base.length);
    const route = path.replace(/\/+$/, "");
    const method = req.method ?? "GET";
    const reconnect = /^runs\/([^/]+)\/events$/.exec(route);
    const cancel = /^runs\/([^/]+)\/cancel$/.exec(route);
    const interrupt = /^runs\/([^/]+)\/interrupt$/.exec(route);
    const approval = /^approvals\/([^/]+)$/.exec(route);
    const known = route === "runs" || route === "ag-ui" || reconnect !== null || cancel !== null || interrupt !== null || approval !== null;
    if (!known) return this.#unmatched(req, res, next);
    // A trailing slash is no route (as `//` is not): a guard in front that matches the raw path
    // (`/approvals/<id>`) would see another path than the route served. One with a dot segment
    // is refused below as such.
    if (path !== route && !DOT_SEGMENT_OR_BACKSLASH.test(rawPath(req))) return this.#unmatched(req, res, next);
    // An answer sent before the body is read (a refusal) closes the connection: a trickled body cannot hold it open.
    closeIfBodyUnread(req, res);
    if (!hostAllowed(req, this.#settings.allowedHosts)) throw forbiddenHost(req);
    // The URL parser resolves `.`/`..` segments (`%2e` too) and reads `\` as `/`: a guard in front
    // of the bridge that matches the raw path would see another route than the one served.
    if (DOT_SEGMENT_OR_BACKSLASH.test(rawPath(req)))
      throw new HttpError(400, "bad_request", "the path has a dot segment or a backslash; send it normalized");

    if (method === "OPTIONS") {
      const headers = corsHeaders(this.#settings.cors, req, true);
      if (Object.keys(headers).length === 0) throw new HttpError(404, "not_found", "no such route for this origin");
      res.writeHead(204, headers);
      res.end();
      return;
    }
    const cors = corsHeaders(this.#settings.cors, req, false);
    try {
      if (!originAllowed(this.#settings.cors, req))
        throw new HttpError(403, "forbidden_origin", `origin ${String(req.headers.origin)} is not allowed to call this bridge`);
      if ((route === "runs" || route === "ag-ui") && method === "POST")
        return await this.#startRun(req, res, route === "runs" ? "raw" : "ag-ui", cors);
      if (reconnect && method === "GET") return await this.#reconnect(req, res, decodePathSegment(reconnect[1]!), cors);
      if (approval && method === "POST") return await this.#answer(req, res, decodePathSegment(approval[1]!), cors);
      if (cancel && method === "POST") return await this.#cancel(req, res, decodePathSegment(cancel[1]!), cors);
      if (interrupt && method === "POST") return await this.#interrupt(req, res, decodePathSegment(interrupt[1]!), cors);
      throw new HttpError(405, "method_not_allowed", `${method} is not allowed here`);
    } catch (error) {
      // The rest of a body too large or too slow is not read: the connection closes after the answer.
      const unread = error instanceof HttpError && (error.status === 413 || error.status === 408);
      sendError(res, error, unread ? { ...cors, connection: "close" } : closing(req, cors));
      if (unread) res.once("finish", () => req.destroy());
    }
  }

  #unmatched(req: IncomingMessage, res: ServerResponse, next: ((error?: unknown) => void) | undefined): void {
    if (next) next();
    else {
      closeIfBodyUnread(req, res);
      sendError(res, new HttpError(404, "not_found", "no such route"), closing(req, corsHeaders(this.#settings.cors, req, false)));
    }
  }

  async #startRun(req: IncomingMessage, res: ServerResponse, protocol: BridgeProtocol, cors: Record<string, string>): Promise<void> {
    if (this.#closed) throw new HttpError(503, "bridge_closed", "the bridge is closed");
    const body = await readJsonBody(req, { maxBytes: this.#settings.maxBodyBytes, timeoutMs: this.#settings.bodyTimeoutMs });
    let context: BridgeRunContext;
    if (protocol === "raw") {
      const { prompt, threadKey, resume } = parseRawBody(body, this.#settings);
      context = {
        protocol,
        prompt: prompt.text,
        images: prompt.images,
        threadKey,
        input: undefined,
        request: req,
        ...(resume ? { resume } : {}),
      };
    } else {
      const { input, prompt, images } = parseAgUiInput(body, this.#settings);
      const resume = input.resume !== undefined && input.resume.length > 0 ? resumeAnswer(input.resume) : undefined;
      if (resume) checkWireId("resume[0].interruptId", resume.approvalId);
      if (!resume) checkPromptText(prompt);
      if (this.#channels.has(input.runId)) throw new HttpError(409, "run_id_in_use", `run ${input.runId} is already known to this bridge`);
      context = { protocol, prompt, images, threadKey: input.threadId, input, request: req, ...(resume ? { resume } : {}) };
    }
    if (this.#fleet) return this.#fleet.start(res, context, cors);
    const settings = this.#settings;
    const runner = typeof settings.runner === "function" ? await pickRunner(settings.runner, context) : settings.runner!;
    const runOptions: RunOptions =
      typeof settings.runOptions === "function" ? await settings.runOptions(context) : (settings.runOptions ?? {});
    if (this.#closed) throw new HttpError(503, "bridge_closed", "the bridge is closed");
    const resume = context.resume;
    // An Agent runs no thread: a raw threadKey it would ignore is refused rather than dropped.
    if (protocol === "raw" && !resume && context.threadKey !== undefined && isAgent(runner))
      throw new HttpError(
        422,
        "thread_unsupported",
        `this bridge's runner is an Agent, which runs no thread: threadKey ${JSON.stringify(context.threadKey)} would be ignored ` +
          "(the host's runner function picks a thread: ({ threadKey }) => agent.thread(threadKey))",
      );
    if (resume && typeof runner.streamAnswer !== "function")
      throw new HttpError(
        422,
        "resume_unsupported",
        "this bridge's runner cannot resume a suspended turn (it has no streamAnswer: use a Thread)",
      );
    const stream = resume
      ? runner.streamAnswer!(resume.approvalId, resume.decision, runOptions)
      : runner.stream(sdkPrompt(context.prompt, context.images), runOptions);
    const input = context.input;
    const key = input ? input.runId : stream.runId;
    if (this.#channels.has(key)) {
      stream.cancel();
      throw new HttpError(409, "run_id_in_use", `run ${key} is already known to this bridge`);
    }
    const mapper = input
      ? new AgUiMapper({ threadId: input.threadId, runId: input.runId, state: input.state, secrets: this.#secrets })
      : undefined;
    const approvals = new Set<string>();
    const channel = new RunChannel({
      key,
      stream,
      encode: mapper ? (event, verdict) => mapper.frames(event, verdict) : (event, verdict) => [encodeRaw(event, this.#secrets, verdict)],
      encodeGap: mapper
        ? (gap) =>
            mapper
              .frame({ type: EventType.CUSTOM, name: AG_UI_CUSTOM_EVENTS.replayGap, value: gap } as never)
              .text.replace(/^id: \d+\n/, "")
        : (gap) => sseEvent({ type: "replay-gap", ...gap }, undefined, "replay-gap"),
      replayFrames: settings.replayFrames,
      replayBytes: settings.replayBytes,
      reconnectGraceMs: settings.reconnectGraceMs,
      maxWatchers: settings.maxWatchersPerRun,
      onApproval: (request) => {
        approvals.add(request.id);
        this.#approvals.set(request.id, { request, key });
      },
      onSettled: (verdict) => this.#settled(key, protocol, verdict),
    });
    this.#channels.set(key, { channel, protocol, approvals });
    this.#track(channel.done.catch(() => undefined));
    const connection = new SseConnection(res, settings);
    connection.open({ ...cors, "x-adaptor-run-id": key });
    await channel.attach(connection, 0);
  }

  async #reconnect(req: IncomingMessage, res: ServerResponse, key: string, cors: Record<string, string>): Promise<void> {
    if (this.#fleet) return this.#fleet.reconnect(res, key, parseLastEventId(req.headers["last-event-id"]), cors);
    const entry = this.#channels.get(key);
    if (!entry) throw new HttpError(404, "not_found", `no run ${key} (unknown, or finished and forgotten)`);
    const lastId = parseLastEventId(req.headers["last-event-id"]);
    const headId = entry.channel.headId;
    if (lastId > headId)
      throw new HttpError(
        400,
        "bad_request",
        `Last-Event-ID ${lastId} is beyond run ${key}'s newest frame (${headId}): it was not sent by this run; reconnect with an id this run sent, or 0 to replay from the start`,
      );
    entry.channel.admit();
    const connection = new SseConnection(res, this.#settings);
    connection.open({ ...cors, "x-adaptor-run-id": key });
    await entry.channel.attach(connection, lastId);
  }

  async #answer(req: IncomingMessage, res: ServerResponse, id: string, cors: Record<string, string>): Promise<void> {
    const body = await readJsonBody(req, { maxBytes: this.#settings.maxBodyBytes, timeoutMs: this.#settings.bodyTimeoutMs });
    if (this.#fleet) return this.#fleet.answer(res, id, body, cors);
    const known = this.#approvals.get(id);
    if (!known)
      throw new HttpError(
        404,
        "not_found",
        `no approval ${id} (unknown, or its run was forgotten; a suspended turn's approval is answered by a resume run instead)`,
      );
    const answered = answerApproval(known.request, body);
    this.#channels.get(known.key)?.channel.approvalAnswered();
    sendJson(res, 200, answered, cors);
  }

  async #cancel(req: IncomingMessage, res: ServerResponse, key: string, cors: Record<string, string>): Promise<void> {
    const body = await readJsonBody(req, { maxBytes: this.#settings.maxBodyBytes, timeoutMs: this.#settings.bodyTimeoutMs });
    const reason = parseCancelBody(body);
    if (this.#fleet) return this.#fleet.cancel(res, key, reason, cors);
    const entry = this.#channels.get(key);
    if (!entry) throw new HttpError(404, "not_found", `no run ${key} (unknown, or finished and forgotten)`);
    const running = !entry.channel.finished;
    entry.channel.cancel(new DOMException(reason ?? "Cancelled by a client", "AbortError"));
    sendJson(res, 200, { key, cancelled: running }, cors);
  }

  async #interrupt(req: IncomingMessage, res: ServerResponse, key: string, cors: Record<string, string>): Promise<void> {
    const body = await readJsonBody(req, { maxBytes: this.#settings.maxBodyBytes, timeoutMs: this.#settings.bodyTimeoutMs });
    if (typeof body !== "object" || body === null || Array.isArray(body) || Object.keys(body).length > 0)
      throw new HttpError(400, "bad_request", "expected {}");
    if (this.#fleet)
      throw new HttpError(422, "interrupt_unsupported", "a run on a fleet cannot be interrupted through the bridge; cancel it instead");
    const entry = this.#channels.get(key);
    if (!entry) throw new HttpError(404, "not_found", `no run ${key} (unknown, or finished and forgotten)`);
    let interrupted: boolean;
    try {
      interrupted = await entry.channel.interrupt();
    } catch (error) {
      if (isError(error, ErrFeatureUnsupported))
        throw new HttpError(422, "interrupt_unsupported", `this run's agent cannot interrupt a turn; cancel it instead`);
      throw error;
    }
    sendJson(res, 200, { key, interrupted }, cors);
  }

  #settled(key: string, protocol: BridgeProtocol, verdict: ChannelVerdict): void {
    try {
      this.#settings.onRunSettled?.({ key, protocol, ...(verdict.ok ? { result: verdict.result } : { error: verdict.error }) });
    } catch {
      // A throwing log hook must not break the bridge.
    }
    const entry = this.#channels.get(key);
    if (!entry) return;
    if (this.#closed) return;
    if (this.#settings.retainFinishedMs === 0 || this.#settings.maxRetainedRuns === 0) {
      // A connected client still reads the end: the channel object lives on in its handler.
      this.#forget(key);
      return;
    }
    entry.retention = setTimeout(() => this.#forget(key), this.#settings.retainFinishedMs);
    entry.retention.unref();
    this.#retained.push(key);
    while (this.#retained.length > this.#settings.maxRetainedRuns) this.#forget(this.#retained[0]!);
  }

  #forget(key: string): void {
    const entry = this.#channels.get(key);
    const index = this.#retained.indexOf(key);
    if (index >= 0) this.#retained.splice(index, 1);
    if (!entry) return;
    clearTimeout(entry.retention);
    entry.channel.dispose();
    for (const id of entry.approvals) this.#approvals.delete(id);
    this.#channels.delete(key);
  }
}

function parseRawBody(
  body: unknown,
  limits: WirePromptLimits,
): {
  prompt: WirePrompt;
  threadKey: string | undefined;
  resume: BridgeResume | undefined;
} {
  if (typeof body !== "object" || body === null || Array.isArray(body))
    throw new HttpError(400, "bad_request", 'expected { "prompt": string }');
  const { prompt, threadKey, resume, ...rest } = body as Record<string, unknown>;
  const unknown = Object.keys(rest);
  if (unknown.length > 0)
    throw new HttpError(
      400,
      "bad_request",
      `unknown field ${JSON.stringify(unknown[0])}; expected { "prompt": string | parts, "threadKey"?: string } or { "threadKey": string, "resume": { "approvalId": string, "decision": ... } }`,
    );
  if (threadKey !== undefined && (typeof threadKey !== "string" || threadKey === ""))
    throw new HttpError(400, "bad_request", "threadKey must be a non-empty string");
  if (threadKey !== undefined) checkWireId("threadKey", threadKey, { threadKey: true });
  if (resume !== undefined) {
    if (prompt !== undefined) throw new HttpError(400, "bad_request", "a resume continues the suspended turn's own prompt: send no prompt");
    if (threadKey === undefined) throw new HttpError(400, "bad_request", "a resume needs the threadKey of the suspended turn's thread");
    if (typeof resume !== "object" || resume === null || Array.isArray(resume))
      throw new HttpError(400, "bad_request", 'resume must be { "approvalId": string, "decision": ... }');
    const { approvalId, ...answer } = resume as Record<string, unknown>;
    if (typeof approvalId !== "string" || approvalId === "")
      throw new HttpError(400, "bad_request", "resume.approvalId must be a non-empty string");
    checkWireId("resume.approvalId", approvalId);
    return {
      prompt: { text: "", images: [] },
      threadKey: threadKey as string | undefined,
      resume: { approvalId, decision: decisionOf(parseApprovalAnswer(answer, "resume")) },
    };
  }
  const parsed = parseRawPrompt(prompt, limits);
  if (parsed.images.length === 0 && parsed.text.trim() === "")
    throw new HttpError(400, "bad_request", "prompt must be a non-empty string (or hold an image)");
  checkPromptText(parsed.text);
  return { prompt: parsed, threadKey: threadKey as string | undefined, resume: undefined };
}

/** The body of `POST runs/<key>/cancel`: `{}` or `{ "reason": string }`. */
function parseCancelBody(body: unknown): string | undefined {
  if (typeof body !== "object" || body === null || Array.isArray(body))
    throw new HttpError(400, "bad_request", 'expected { "reason"?: string }');
  const { reason, ...rest } = body as Record<string, unknown>;
  if (Object.keys(rest).length > 0)
    throw new HttpError(400, "bad_request", `unknown field ${JSON.stringify(Object.keys(rest)[0])}; expected { "reason"?: string }`);
  if (reason !== undefined && (typeof reason !== "string" || reason.length > 4_096))
    throw new HttpError(400, "bad_request", "reason must be a string of at most 4,096 characters");
  return reason as string | undefined;
}

/** Refuses a prompt no CLI can carry (a lone UTF-16 surrogate) before a run starts. */
function checkPromptText(prompt: string): void {
  try {
    assertWellFormedString("run", "prompt", prompt, { allowNul: true });
  } catch (error) {
    if (error instanceof MalformedStringError) throw new HttpError(400, "bad_request", error.message);
    throw error;
  }
}

/** Decodes one percent-encoded path segment; malformed encoding is a 400. */
function decodePathSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw new HttpError(400, "bad_request", "the path holds malformed percent-encoding");
  }
}

/** The `Last-Event-ID` header as a frame id: absent or empty is 0; anything but a non-negative safe decimal integer is a 400. */
function parseLastEventId(header: string | string[] | undefined): number {
  if (header === undefined || header === "") return 0;
  const value = Array.isArray(header) ? undefined : header.trim();
  const id = value !== undefined && /^\d+$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(id)) throw new HttpError(400, "bad_request", "Last-Event-ID must be a non-negative decimal integer");
  return id;
}

/** True for an `Agent` (it has `thread()`), which runs prompts outside any thread. */
function isAgent(runner: BridgeRunner): boolean {
  return typeof (runner as { thread?: unknown }).thread === "function";
}

/**
 * The runner the host's function picks for `context`; a thread key the SDK refuses (one the host
 * derived from the client's id, e.g. with a prefix) is the client's error, not the bridge's.
 * @throws HttpError 400 `invalid_id` for `ErrInvalidThreadKey`; the function's other errors as they are.
 */
async function pickRunner<R>(pick: (context: BridgeRunContext) => R | Promise<R>, context: BridgeRunContext): Promise<R> {
  try {
    return await pick(context);
  } catch (error) {
    if (isError(error, ErrInvalidThreadKey))
      throw new HttpError(
        400,
        "invalid_id",
        `invalid thread key: ${findError(error, InvalidThreadKeyError)?.reason ?? "it breaks the key rules"}`,
      );
    throw error;
  }
}
