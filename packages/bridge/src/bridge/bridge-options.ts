import type { IncomingMessage } from "node:http";
import type { RunAgentInput } from "@ag-ui/core";
import { checkOptions, InvalidOptionError, optionChecks as is, type OptionCheck } from "@adaptor/errors";
import {
  MAX_PROMPT_IMAGE_BYTES,
  MAX_PROMPT_IMAGES,
  type ApprovalDecision,
  type ImagePart,
  type Prompt,
  type Result,
  type RunOptions,
  type Stream,
} from "adaptor";
import type { BridgeResume } from "../approvals/answer-approval.js";
import { corsOriginFlaw, type CorsOptions } from "../http/cors.js";
import type { BridgeFleet } from "../fleet/bridge-fleet.js";
import { hostRule } from "adaptor";

/** What the bridge runs prompts on: an `Agent` or a `Thread` (anything with their `stream()`). */
export interface BridgeRunner {
  /**
   * Starts a run, as `Agent.stream` and `Thread.stream` do: `prompt` is the text, or text and
   * images (each a base64 `data:` URL part) when the client sent images.
   */
  stream(prompt: Prompt, options?: RunOptions): Stream;
  /**
   * Answers a suspended turn's stored approval and resumes the turn, as `Thread.streamAnswer`
   * does: what an AG-UI run with `resume` entries calls. A runner without it (an `Agent`) refuses
   * such a run with 422.
   */
  streamAnswer?(approvalId: string, decision: ApprovalDecision, options?: RunOptions): Stream;
}

/** The wire protocol of a run: `raw` (the SDK's events as JSON) or `ag-ui` (AG-UI events). */
export type BridgeProtocol = "raw" | "ag-ui";

/** What the bridge knows about a run request when it picks the runner and the run options. */
export interface BridgeRunContext {
  readonly protocol: BridgeProtocol;
  /** The prompt's text (`raw`: the body's `prompt` or its text parts; `ag-ui`: the text of the last user message). */
  readonly prompt: string;
  /**
   * The prompt's images, in order, each `{ type: "image", url: "data:<type>;base64,..." }`; empty
   * when the client sent none. The runner is given the text and these.
   */
  readonly images: readonly ImagePart[];
  /** `raw`: the body's `threadKey`; `ag-ui`: the input's `threadId`. */
  readonly threadKey: string | undefined;
  /** The AG-UI input, for `ag-ui` runs. */
  readonly input: RunAgentInput | undefined;
  /** A resume run: the stored approval it answers and the decision (the prompt is then `""`). */
  readonly resume?: BridgeResume;
  /** The HTTP request (headers, the authenticated user a middleware put on it). */
  readonly request: IncomingMessage;
}

/** How a run ended, for the host's own logs (error events on the wire carry only a public message). */
export interface BridgeRunSettled {
  /** The key clients reconnect with: the run id (`raw`) or the AG-UI `runId`. */
  readonly key: string;
  readonly protocol: BridgeProtocol;
  /** The Result, on success. */
  readonly result?: Result;
  /** The verdict's error (a `RunError`, an `AbortError` when the client went away, ...), on failure. */
  readonly error?: unknown;
}

/** Options of {@link Bridge}. Durations are milliseconds. Exactly one of `runner` and `fleet` is required. */
export interface BridgeOptions {
  /** The runner, or a function that picks one per request (e.g. `({ threadKey }) => agent.thread(threadKey)`). */
  readonly runner?: BridgeRunner | ((context: BridgeRunContext) => BridgeRunner | Promise<BridgeRunner>);
  /**
   * A fleet to front instead of a local runner (`Fleet` of `@adaptor/fleet`): runs are submitted to
   * it (`raw` `threadKey` and AG-UI `threadId` become its thread key) and workers on any host run
   * them; every stream is read from the fleet's stored events, so the bridge is stateless: a run
   * started on one front-end is followed (`Last-Event-ID`), answered and cancelled on any other. A
   * client that disconnects does not cancel the run (`POST runs/<key>/cancel` does);
   * `reconnectGraceMs`, `replayFrames`, `replayBytes`, `retainFinishedMs` and `maxRetainedRuns`
   * do not apply. `runOptions` must be JSON (handlers, tools and schemas live on the workers'
   * Agent). A suspended turn (`runOptions.suspend`) is resumed as a fleet run of its thread,
   * submitted through any front-end: the first resume of an approval wins, another is 409
   * `approval_resolved`.
   */
  readonly fleet?: BridgeFleet;
  /** Run options for every run, or a function of the request. Default none. */
  readonly runOptions?: RunOptions | ((context: BridgeRunContext) => RunOptions | Promise<RunOptions>);
  /** Path prefix the routes live under when the handler sees full URLs. Default `"/"`. */
  readonly basePath?: string;
  /** Cross-origin access. Default off: no CORS headers, preflights answered 404. */
  readonly cors?: CorsOptions;
  /**
   * Hosts the bridge answers besides the loopback names (`127.0.0.1`, `localhost`, `[::1]`) on the
   * port a request arrived on: the public names it is reached by, as `Host` headers carry them
   * (`"chat.example.com"`: any port; `"chat.example.com:8443"`; or an origin such as
   * `"https://chat.example.com"`). A request whose `Host` is none of these (or missing) is refused
   * with 403 `forbidden_host`, which defeats DNS rebinding. `"*"` turns the check off (only for a
   * bridge behind a proxy that checks `Host` itself). Default `[]`: loopback only.
   */
  readonly allowedHosts?: readonly string[] | "*";
  /** Largest request body, bytes. Default 1,048,576 (1 MiB); larger bodies get 413. */
  readonly maxBodyBytes?: number;
  /**
   * Most images one prompt may carry; more get 413 `too_many_images`. At most `MAX_PROMPT_IMAGES`
   * (20) of the SDK. Default 8.
   */
  readonly maxImages?: number;
  /**
   * Most bytes one prompt image may hold, decoded; a larger one gets 413 `image_too_large`. At most
   * `MAX_PROMPT_IMAGE_BYTES` (5 MiB) of the SDK. Default 5,242,880 (5 MiB). The whole body stays
   * under `maxBodyBytes` (base64 is 4/3 of the bytes): raise that too for large images.
   */
  readonly maxImageBytes?: number;
  /** Longest time a request body may take to arrive; a slower one (a client trickling it byte by byte) gets 408 and the connection is closed. Default 30,000. */
  readonly bodyTimeoutMs?: number;
  /** Interval of keep-alive `: ping` comments. Default 15,000. */
  readonly pingIntervalMs?: number;
  /** How long one write may wait for a slow client before the connection is dropped (and counts as a disconnect). Default 30,000. */
  readonly writeTimeoutMs?: number;
  /**
   * How long a run lives on after its client disconnected, waiting for a reconnect with
   * `Last-Event-ID`; then it is cancelled. While one of the run's approvals is pending the run is
   * not cancelled (the approval's own deadline, `policy.approvals.timeoutMs`, bounds that wait),
   * and answering an approval starts a fresh grace. 0: cancelled at once, approvals or not.
   * Default 5,000.
   */
  readonly reconnectGraceMs?: number;
  /**
   * Clients that may follow one run at once (the starting request's stream and each
   * `GET runs/<key>/events`, every one replaying from its own `Last-Event-ID` and then getting every
   * later frame and the verdict). One more is refused with 429 `too_many_watchers`. Default 8.
   */
  readonly maxWatchersPerRun?: number;
  /** Frames kept per run for replay. Default 1,024. */
  readonly replayFrames?: number;
  /** Bytes of frames kept per run for replay. Default 4,194,304 (4 MiB). */
  readonly replayBytes?: number;
  /** How long a finished run stays reachable (replay, 410 for late approval answers). Default 60,000. */
  readonly retainFinishedMs?: number;
  /** Finished runs kept at most; the oldest are forgotten first. Default 256. */
  readonly maxRetainedRuns?: number;
  /** Called once per run with its verdict (for logs; never sent to clients). */
  readonly onRunSettled?: (settled: BridgeRunSettled) => void;
}

/** Resolved settings. */
export interface BridgeSettings {
  readonly runner: BridgeOptions["runner"];
  readonly fleet: BridgeFleet | undefined;
  readonly runOptions: BridgeOptions["runOptions"];
  readonly basePath: string;
  readonly cors: CorsOptions | undefined;
  readonly allowedHosts: readonly string[] | "*";
  readonly maxBodyBytes: number;
  readonly maxImages: number;
  readonly maxImageBytes: number;
  readonly bodyTimeoutMs: number;
  readonly pingIntervalMs: number;
  readonly writeTimeoutMs: number;
  readonly reconnectGraceMs: number;
  readonly maxWatchersPerRun: number;
  readonly replayFrames: number;
  readonly replayBytes: number;
  readonly retainFinishedMs: number;
  readonly maxRetainedRuns: number;
  readonly onRunSettled: BridgeOptions["onRunSettled"];
}

const SUBJECT = "bridge options";

const runnerCheck: OptionCheck = (value, field, subject) => {
  if (typeof value === "function") return;
  if (typeof value === "object" && value !== null && typeof (value as { stream?: unknown }).stream === "function") return;
  throw new InvalidOptionError({
    subject,
    field,
    reason: "must be an Agent, a Thread (an object with stream()) or a function returning one",
  });
};

const fleetCheck: OptionCheck = (value, field, subject) => {
  const methods = ["submit", "handle", "answer", "approval"];
  if (typeof value === "object" && value !== null && methods.every((m) => typeof (value as Record<string, unknown>)[m] === "function"))
    return;
  throw new InvalidOptionError({ subject, field, reason: `must be a Fleet (an object with ${methods.join(", ")})` });
};

const corsCheck: OptionCheck = (value, field, subject) => {
  const cors = checkOptions<CorsOptions>(
    subject,
    value,
    {
      origins: is.anyOf('"*" or an array of origins', is.oneOf("*"), is.arrayOf(is.string({ nonEmpty: true }))),
      credentials: is.boolean(),
      maxAgeSeconds: is.integer(0, 86_400),
    },
    { path: field },
  );
  if (cors.origins === undefined) throw new InvalidOptionError({ subject, field: `${field}.origins`, reason: "is required" });
  if (cors.origins === "*" && cors.credentials)
    throw new InvalidOptionError({ subject, field: `${field}.credentials`, reason: 'cannot be true with origins "*"' });
  if (cors.origins !== "*")
    cors.origins.forEach((entry, index) => {
      const flaw = corsOriginFlaw(entry);
      if (flaw) throw new InvalidOptionError({ subject, field: `${field}.origins[${index}]`, reason: `${JSON.stringify(entry)} ${flaw}` });
    });
};

const allowedHostsCheck: OptionCheck = (value, field, subject) => {
  if (value === "*") return;
  is.arrayOf(is.string({ nonEmpty: true }))(value, field, subject);
  (value as string[]).forEach((entry, index) => {
    if (hostRule(entry) === undefined)
      throw new InvalidOptionError({
        subject,
        field: `${field}[${index}]`,
        reason: `${JSON.stringify(entry)} is not a host ("chat.example.com", "chat.example.com:8443") nor an origin ("https://chat.example.com")`,
      });
  });
};

const SHAPE = {
  runner: runnerCheck,
  fleet: fleetCheck,
  runOptions: is.anyOf("run options or a function", is.func(), is.object()),
  basePath: is.string({ nonEmpty: true }),
  cors: corsCheck,
  allowedHosts: allowedHostsCheck,
  maxBodyBytes: is.integer(1),
  maxImages: is.integer(0, MAX_PROMPT_IMAGES),
  maxImageBytes: is.integer(1, MAX_PROMPT_IMAGE_BYTES),
  bodyTimeoutMs: is.timerMs({ positive: true }),
  pingIntervalMs: is.timerMs({ positive: true }),
  writeTimeoutMs: is.timerMs({ positive: true }),
  reconnectGraceMs: is.timerMs(),
  maxWatchersPerRun: is.integer(1),
  replayFrames: is.integer(1),
  replayBytes: is.integer(1),
  retainFinishedMs: is.timerMs(),
  maxRetainedRuns: is.integer(0),
  onRunSettled: is.func(),
};

/**
 * Checks bridge options and fills in the defaults.
 * @throws InvalidOptionError naming the field: an unknown key, a wrong type, neither or both of `runner` and `fleet`.
 */
export function resolveBridgeOptions(options: unknown): BridgeSettings {
  const checked = checkOptions<BridgeOptions>(SUBJECT, options, SHAPE);
  if (checked.runner === undefined && checked.fleet === undefined)
    throw new InvalidOptionError({ subject: SUBJECT, field: "runner", reason: "is required (or fleet)" });
  if (checked.runner !== undefined && checked.fleet !== undefined)
    throw new InvalidOptionError({ subject: SUBJECT, field: "fleet", reason: "cannot be given with runner" });
  let basePath = checked.basePath ?? "/";
  if (!basePath.startsWith("/")) basePath = `/${basePath}`;
  if (!basePath.endsWith("/")) basePath = `${basePath}/`;
  return {
    runner: checked.runner,
    fleet: checked.fleet,
    runOptions: checked.runOptions,
    basePath,
    cors: checked.cors,
    allowedHosts: checked.allowedHosts ?? [],
    maxBodyBytes: checked.maxBodyBytes ?? 1_048_576,
    maxImages: checked.maxImages ?? 8,
    maxImageBytes: checked.maxImageBytes ?? MAX_PROMPT_IMAGE_BYTES,
    bodyTimeoutMs: checked.bodyTimeoutMs ?? 30_000,
    pingIntervalMs: checked.pingIntervalMs ?? 15_000,
    writeTimeoutMs: checked.writeTimeoutMs ?? 30_000,
    reconnectGraceMs: checked.reconnectGraceMs ?? 5_000,
    maxWatchersPerRun: checked.maxWatchersPerRun ?? 8,
    replayFrames: checked.replayFrames ?? 1_024,
    replayBytes: checked.replayBytes ?? 4_194_304,
    retainFinishedMs: checked.retainFinishedMs ?? 60_000,
    maxRetainedRuns: checked.maxRetainedRuns ?? 256,
    onRunSettled: checked.onRunSettled,
  };
}
