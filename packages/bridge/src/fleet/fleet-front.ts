import { setMaxListeners } from "node:events";
import type { ServerResponse } from "node:http";
import { v5 as uuidV5, validate as isUuid } from "uuid";
import { DriverError, ErrApprovalNotPending, ErrCode, ErrInvalidThreadKey, isError, type ApprovalDecision, type RunOptions } from "adaptor";
import { askFactsOf, decisionRefusal } from "adaptor/internal";
import { decisionOf, parseApprovalAnswer, rememberOf, unfitAnswerError } from "../approvals/answer-approval.js";
import { HttpError, sendJson } from "../http/http-error.js";
import { sdkPrompt } from "../protocols/wire-prompt.js";
import type { ChannelVerdict } from "../run/run-channel.js";
import { SseConnection } from "../sse/sse-connection.js";
import type { BridgeProtocol, BridgeRunContext, BridgeSettings } from "../bridge/bridge-options.js";
import type { BridgeFleet, BridgeFleetRun } from "./bridge-fleet.js";
import { FleetFrames } from "./fleet-frames.js";

/** The namespace of the fleet run ids derived from AG-UI run ids (UUID v5). */
const AG_UI_RUN_NAMESPACE = "5f0c7d2e-6b1a-4c57-9a0e-3d4b8f1e2a60";

/** The fleet run id of an AG-UI run: the same on every front-end. */
export function agUiFleetRunId(agUiRunId: string): string {
  return uuidV5(agUiRunId, AG_UI_RUN_NAMESPACE);
}

/** A fleet run the bridge serves, found from a wire key. */
interface FoundRun {
  readonly run: BridgeFleetRun;
  readonly protocol: BridgeProtocol;
  readonly threadKey: string | undefined;
  /** The sequence of its newest stored event when it was found. */
  readonly lastSequence: number;
}

/** Sentinel ids of the fleet errors the bridge answers with a status of its own. */
const FLEET_ERRORS = {
  queueFull: "adaptor.fleet.QueueFull",
  runExists: "adaptor.fleet.RunExists",
  runNotFound: "adaptor.fleet.RunNotFound",
  closed: "adaptor.fleet.Closed",
};

/**
 * The bridge's routes over a fleet: runs are submitted to the fleet and every stream is read from
 * the fleet's stored events, so a front-end holds nothing a client needs: a run started on one is
 * followed, resumed (`Last-Event-ID`), answered and cancelled on any other.
 */
export class FleetFront {
  readonly #fleet: BridgeFleet;
  readonly #settings: BridgeSettings;
  readonly #secrets: () => readonly string[];
  readonly #track: (work: Promise<void>) => void;
  /** Aborted by {@link close}. Every stream being written holds a listener on it until it ends: no listener limit applies. */
  readonly #closing = new AbortController();

  constructor(fleet: BridgeFleet, settings: BridgeSettings, secrets: () => readonly string[], track: (work: Promise<void>) => void) {
    this.#fleet = fleet;
    this.#settings = settings;
    this.#secrets = secrets;
    this.#track = track;
    setMaxListeners(0, this.#closing.signal);
  }

  /** Ends every stream this front-end writes (the runs go on in the fleet). */
  close(): void {
    this.#closing.abort(new DOMException("The bridge closed", "AbortError"));
  }

  /**
   * `POST runs` / `POST ag-ui`: submits the run (a resume: a run that answers the suspended turn's
   * stored approval and runs the turn on, on a worker), then streams it.
   */
  async start(res: ServerResponse, context: BridgeRunContext, cors: Record<string, string>): Promise<void> {
    const resume = context.resume;
    const settings = this.#settings;
    const runOptions: RunOptions =
      typeof settings.runOptions === "function" ? await settings.runOptions(context) : (settings.runOptions ?? {});
    const input = context.input;
    let run: BridgeFleetRun;
    try {
      run = await this.#fleet.submit(sdkPrompt(context.prompt, context.images), {
        ...(context.threadKey !== undefined ? { threadKey: context.threadKey } : {}),
        runOptions,
        ...(input ? { runId: agUiFleetRunId(input.runId) } : {}),
        ...(resume ? { resume } : {}),
      });
    } catch (error) {
      throw submitRefusal(error, input?.runId, resume?.approvalId);
    }
    const key = input ? input.runId : run.id;
    const frames = this.#frames(context.protocol, run, key, input?.threadId ?? "");
    const connection = new SseConnection(res, settings);
    connection.open({ ...cors, "x-adaptor-run-id": key });
    await this.#follow(connection, run, frames, 0);
    // The front-end that submitted the run reports its verdict, whether or not its client stayed.
    const settled = run.result({ signal: this.#closing.signal }).then(
      (result) => settings.onRunSettled?.({ key, protocol: context.protocol, result }),
      (error: unknown) => {
        if (!this.#closing.signal.aborted) settings.onRunSettled?.({ key, protocol: context.protocol, error });
      },
    );
    this.#track(settled.catch(() => undefined));
  }

  /**
   * `GET runs/<key>/events`: the run's frames after `lastId`, from the fleet's stored events, then live.
   * @throws HttpError 400 `bad_request` for a `lastId` of a frame after the run's newest stored
   *   event (no front-end sent it; following from it would skip every frame up to it); 403
   *   `permission_denied` (503 `database_unavailable`) when the fleet may not read (cannot reach)
   *   the run's events, found before the stream's headers go out.
   */
  async reconnect(res: ServerResponse, key: string, lastId: number, cors: Record<string, string>): Promise<void> {
    const found = await this.#find(key);
    const frames = this.#frames(found.protocol, found.run, key, found.threadKey ?? "");
    // Every event stored is counted in lastSequence before any front-end sends its frames, so an id
    // any front-end sent, while the run is live or after its verdict, names an event up to it.
    if (frames.sequenceOf(lastId) > found.lastSequence)
      throw new HttpError(
        400,
        "bad_request",
        `Last-Event-ID ${lastId} is beyond run ${key}'s newest frame (of stored event ${found.lastSequence}): it was not sent by this run; reconnect with an id this run sent, or 0 to replay from the start`,
      );
    await readable(found.run, found.lastSequence);
    const connection = new SseConnection(res, this.#settings);
    connection.open({ ...cors, "x-adaptor-run-id": key });
    await this.#follow(connection, found.run, frames, lastId);
  }

  /** `POST approvals/<id>`: records the answer in the fleet, where the waiting worker reads it. */
  async answer(res: ServerResponse, id: string, body: unknown, cors: Record<string, string>): Promise<void> {
    const answer = parseApprovalAnswer(body, "body", true);
    const decision: ApprovalDecision = decisionOf(answer);
    const remember = rememberOf(answer);
    const found = await this.#fleet.approval(id).catch((error: unknown) => {
      throw databaseRefusal(error);
    });
    if (!found) throw new HttpError(404, "not_found", `no approval ${id} (unknown, or its run was removed)`);
    if (found.status === "answered") throw answeredError(id, found.decision);
    if (found.status === "closed") throw new HttpError(410, "approval_expired", `approval ${id} expired`, { status: "expired" });
    const ask = askFactsOf(id, found.request);
    const refused = decisionRefusal(ask, decision, "answer");
    if (refused && !refused.denies) throw unfitAnswerError(refused.error, answer.decision, ask.kind) ?? refused.error;
    try {
      await this.#fleet.answer(id, remember !== undefined ? { ...decision, remember } : decision);
    } catch (error) {
      // A refused rule (the fleet checks it as the worker's request would): nothing recorded.
      const unfit = unfitAnswerError(error, answer.decision, ask.kind);
      if (unfit) throw unfit;
      if (isError(error, ErrApprovalNotPending)) {
        // Another answer won meanwhile (through any front-end): say how, as a local bridge does.
        const now = await this.#fleet.approval(id).catch((failure: unknown) => {
          throw databaseRefusal(failure);
        });
        if (now?.status === "closed") throw new HttpError(410, "approval_expired", `approval ${id} expired`, { status: "expired" });
        throw answeredError(id, now?.decision);
      }
      throw databaseRefusal(error);
    }
    if (refused?.denies)
      // The worker's request denies an edit its agent cannot run, as a local request does.
      throw new HttpError(
        422,
        "approval_edit_unsupported",
        `approval ${id}: this agent cannot run an edited input; the request was denied`,
        {
          status: "denied",
        },
      );
    sendJson(res, 200, { id, status: answeredStatus(decision) }, cors);
  }

  /** `POST runs/<key>/cancel`: cancels the run through the fleet, from any front-end. */
  async cancel(res: ServerResponse, key: string, reason: string | undefined, cors: Record<string, string>): Promise<void> {
    const found = await this.#find(key);
    const cancelled = await found.run.cancel(reason ?? "cancelled by a client").catch((error: unknown) => {
      throw databaseRefusal(error);
    });
    sendJson(res, 200, { key, cancelled }, cors);
  }

  #frames(protocol: BridgeProtocol, run: BridgeFleetRun, key: string, threadId: string): FleetFrames {
    return new FleetFrames({
      protocol,
      runId: run.id,
      threadId,
      agUiRunId: key,
      secrets: this.#secrets,
      verdict: async (stored) => {
        const verdict = await run.result({ signal: this.#closing.signal }).then(
          (result): ChannelVerdict => ({ ok: true, result }),
          (error: unknown): ChannelVerdict => ({ ok: false, error }),
        );
        // A run cancelled through the fleet ends as cancelled on the wire, as a local cancel does.
        if (!verdict.ok && stored.kind === "cancelled")
          return { ok: false, error: new DOMException(verdict.error instanceof Error ? verdict.error.message : "cancelled", "AbortError") };
        return verdict;
      },
    });
  }

  /** The run a wire key names: an AG-UI `runId` (its derived fleet id), else a fleet run id (`raw`). */
  async #find(key: string): Promise<FoundRun> {
    const notFound = (): HttpError => new HttpError(404, "not_found", `no run ${key}`);
    // Only "no such run" is a 404: anything else (the database restarting) fails the request, and the client tries again.
    const unknown = (error: unknown): undefined => {
      if (sentinelIds(error).has(FLEET_ERRORS.runNotFound)) return undefined;
      throw databaseRefusal(error);
    };
    const agUi = this.#fleet.handle(agUiFleetRunId(key));
    const agUiInfo = await agUi.info().catch(unknown);
    if (agUiInfo) return { run: agUi, protocol: "ag-ui", threadKey: agUiInfo.threadKey, lastSequence: agUiInfo.lastSequence };
    if (!isUuid(key)) throw notFound();
    const raw = this.#fleet.handle(key);
    const rawInfo = await raw.info().catch(unknown);
    if (!rawInfo) throw notFound();
    return { run: raw, protocol: "raw", threadKey: rawInfo.threadKey, lastSequence: rawInfo.lastSequence };
  }

  /** Writes the run's frames after `lastId` to `connection` until the verdict, the client leaves, or the bridge closes. */
  async #follow(connection: SseConnection, run: BridgeFleetRun, frames: FleetFrames, lastId: number): Promise<void> {
    const stop = new AbortController();
    const onClosing = (): void => stop.abort(this.#closing.signal.reason);
    this.#closing.signal.addEventListener("abort", onClosing, { once: true });
    if (this.#closing.signal.aborted) onClosing();
    connection.onClose(() => stop.abort(new DOMException("The client disconnected", "AbortError")));
    try {
      for await (const stored of run.events({ after: frames.readAfter(lastId), signal: stop.signal })) {
        for (const frame of await frames.frames(stored)) {
          if (frame.id > lastId && !connection.closed) await connection.write(frame.text);
        }
        if (connection.closed) break;
      }
    } catch {
      // The client left or the bridge closed: nothing to report. A failed read ends the stream; the client reconnects.
      if (!stop.signal.aborted) connection.destroy();
    } finally {
      this.#closing.signal.removeEventListener("abort", onClosing);
      connection.end();
    }
  }
}

/**
 * Reads the newest stored event of `run` (of sequence `lastSequence`) and drops it, or, for a run
 * with none yet, what is stored without waiting for live events (`follow: false`, which finds
 * nothing): a fleet that may not read the run's events (or cannot reach them) refuses here either
 * way, while the request can still be answered with its status.
 * @throws HttpError 403 `permission_denied` or 503 `database_unavailable` (see `databaseRefusal`).
 */
async function readable(run: BridgeFleetRun, lastSequence: number): Promise<void> {
  const stop = new AbortController();
  try {
    for await (const _ of run.events({ after: Math.max(0, lastSequence - 1), follow: false, signal: stop.signal })) break;
  } catch (error) {
    throw databaseRefusal(error);
  } finally {
    stop.abort();
  }
}

/** The status an approval answered with `decision` has, as the SDK's request says it: `approved`, `denied` or `answered` (a choice). */
function answeredStatus(decision: { readonly outcome: string } | undefined): "approved" | "denied" | "answered" {
  return decision?.outcome === "approve" ? "approved" : decision?.outcome === "deny" ? "denied" : "answered";
}

/** The 409 `approval_resolved` of an approval answered before (its `status` the recorded answer's). */
function answeredError(id: string, decision: { readonly outcome: string } | undefined): HttpError {
  return new HttpError(409, "approval_resolved", `approval ${id} was already answered`, { status: answeredStatus(decision) });
}

/** The answer to a refused submit. */
function submitRefusal(error: unknown, agUiRunId: string | undefined, resumed: string | undefined): unknown {
  if (resumed !== undefined && isError(error, ErrApprovalNotPending))
    // Another resume of this suspended turn was submitted first, through any front-end.
    return new HttpError(409, "approval_resolved", `approval ${resumed} is already answered by another resume (first answer wins)`, {
      status: "answered",
    });
  const ids = sentinelIds(error);
  if (ids.has(FLEET_ERRORS.runExists)) return new HttpError(409, "run_id_in_use", `run ${agUiRunId ?? ""} is already known to this fleet`);
  if (ids.has(FLEET_ERRORS.queueFull)) return new HttpError(503, "queue_full", "the fleet's queue is full; try again later");
  if (ids.has(FLEET_ERRORS.closed)) return new HttpError(503, "bridge_closed", "the fleet is closed");
  if (isError(error, ErrInvalidThreadKey))
    return new HttpError(400, "invalid_id", error instanceof Error ? error.message : "invalid thread key");
  return databaseRefusal(error);
}

/**
 * The answer to a fleet call its database refused: for a right the fleet's role lacks (`DriverError`
 * `PERMISSION`) 403 `permission_denied`; unreachable or restarting (`SERVICE_UNAVAILABLE`, which the
 * client may retry) 503 `database_unavailable`; each with a fixed message (the role, table and
 * PostgreSQL's message stay on the host); anything else as it is.
 */
function databaseRefusal(error: unknown): unknown {
  if (error instanceof DriverError && error.code === ErrCode.Permission)
    return new HttpError(403, "permission_denied", "the server's fleet may not do this: its database role lacks a right it needs");
  if (error instanceof DriverError && error.code === ErrCode.ServiceUnavailable)
    return new HttpError(503, "database_unavailable", "the server's fleet cannot reach its database: try again");
  return error;
}

/** Ids of the sentinels an error carries (the fleet's errors are matched by id: the bridge does not load the fleet). */
function sentinelIds(error: unknown): Set<string> {
  const found = new Set<string>();
  const sentinels = (error as { sentinels?: unknown } | null)?.sentinels;
  if (Array.isArray(sentinels))
    for (const s of sentinels) if (typeof (s as { id?: unknown }).id === "string") found.add((s as { id: string }).id);
  return found;
}
