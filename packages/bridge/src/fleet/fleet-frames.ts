import type { AgentEvent } from "adaptor";
import { AgUiMapper } from "../protocols/ag-ui.js";
import { sseEvent, type Frame } from "../protocols/frame.js";
import { encodeRaw } from "../protocols/raw.js";
import type { ChannelVerdict } from "../run/run-channel.js";
import type { BridgeProtocol } from "../bridge/bridge-options.js";
import type { BridgeFleetEvent } from "./bridge-fleet.js";

/**
 * AG-UI frames per fleet event at most: a frame's SSE id is `sequence * AG_UI_FRAMES_PER_EVENT +`
 * its index among the frames of that event, so every front-end numbers them alike.
 */
export const AG_UI_FRAMES_PER_EVENT = 1_000;

/** What the frames of one fleet run are made from. */
export interface FleetFramesInit {
  readonly protocol: BridgeProtocol;
  /** The fleet run's id. */
  readonly runId: string;
  /** AG-UI: the input's `threadId` and `runId`. */
  readonly threadId: string;
  readonly agUiRunId: string;
  readonly secrets: () => readonly string[];
  /** The run's verdict, read when its `verdict` event arrives. */
  readonly verdict: (stored: { readonly kind?: unknown }) => Promise<ChannelVerdict>;
}

/**
 * Turns a fleet run's stored events into SSE frames, the same on every front-end: `raw` frames
 * carry the fleet sequence as their id (an attempt's `run-finished` is sent with the verdict, at
 * the `verdict` event's sequence); `ag-ui` frames are numbered from the sequence (see
 * {@link AG_UI_FRAMES_PER_EVENT}) and their message ids are derived from it, so a replay from the
 * first event rebuilds exactly what an earlier front-end sent.
 */
export class FleetFrames {
  readonly #init: FleetFramesInit;
  readonly #mapper: AgUiMapper | undefined;
  #sequence = 0;
  #index = 0;
  #ids = 0;
  /** The SDK's `run-finished` of the attempt that settled the run, sent with the verdict. */
  #finished: Record<string, unknown> | undefined;

  constructor(init: FleetFramesInit) {
    this.#init = init;
    this.#mapper =
      init.protocol === "ag-ui"
        ? new AgUiMapper({
            threadId: init.threadId,
            runId: init.agUiRunId,
            state: undefined,
            secrets: init.secrets,
            stateDelta: true,
            newId: () => `${init.runId}-${this.#sequence}-${++this.#ids}`,
            nextFrameId: () => this.#sequence * AG_UI_FRAMES_PER_EVENT + this.#index++,
          })
        : undefined;
  }

  /** The sequence to read the fleet's events after, for a client that has frame `lastId`. */
  readAfter(lastId: number): number {
    // AG-UI frames depend on the state of the whole run (open messages, tool calls): replay from the start.
    return this.#mapper ? 0 : lastId;
  }

  /** The sequence of the stored event whose frames include frame `id`. */
  sequenceOf(id: number): number {
    return this.#mapper ? Math.floor(id / AG_UI_FRAMES_PER_EVENT) : id;
  }

  /** The frames of one stored event (none for an SDK `run-finished`, which waits for the verdict). */
  async frames(stored: BridgeFleetEvent): Promise<Frame[]> {
    this.#sequence = stored.sequence;
    this.#index = 0;
    this.#ids = 0;
    const time = new Date(stored.recordedAt);
    const body = stored.event as Record<string, unknown> & { type: string };
    const mapper = this.#mapper;
    const out: Frame[] = mapper ? mapper.start(time) : [];
    switch (body.type) {
      case "attempt-started": {
        const attempt = Number(body["attempt"]);
        const worker = String(body["worker"]);
        if (mapper) out.push(...mapper.attemptStarted(attempt, worker, time));
        else out.push({ id: stored.sequence, text: sseEvent({ type: "attempt-started", attempt, worker }, stored.sequence) });
        break;
      }
      case "run-finished":
        this.#finished = body;
        break;
      case "verdict": {
        const verdict = await this.#init.verdict((body["verdict"] ?? {}) as { kind?: unknown });
        const event = reviveEvent(this.#finished ?? finishedOf(verdict, this.#init.runId, stored), time);
        if (mapper) out.push(...mapper.frames(event, verdict));
        else out.push(encodeRaw(event, this.#init.secrets, verdict, stored.sequence));
        break;
      }
      default: {
        const event = reviveEvent(body, time);
        if (mapper) out.push(...mapper.frames(event));
        else out.push(encodeRaw(event, this.#init.secrets, undefined, stored.sequence));
      }
    }
    return out;
  }
}

/** The `run-finished` of a verdict no attempt wrote one for (cancelled, attempts exhausted, a recovered turn). */
function finishedOf(verdict: ChannelVerdict, runId: string, stored: BridgeFleetEvent): Record<string, unknown> {
  const message = verdict.ok ? undefined : verdict.error instanceof Error ? verdict.error.message : String(verdict.error);
  return {
    type: "run-finished",
    ok: verdict.ok,
    ...(verdict.ok ? {} : { reason: "error", message }),
    meta: { runId, sequence: stored.sequence, time: stored.recordedAt },
  };
}

/** An SDK event as the fleet stored it (JSON) in the shape the encoders read: dates as `Date`s. */
function reviveEvent(json: Record<string, unknown>, fallbackTime: Date): AgentEvent {
  const meta = (json["meta"] ?? {}) as Record<string, unknown>;
  const time = typeof meta["time"] === "string" ? new Date(meta["time"]) : fallbackTime;
  const event: Record<string, unknown> = { ...json, meta: { ...meta, time } };
  if (json["type"] === "approval-request" && typeof json["request"] === "object" && json["request"] !== null) {
    const request = json["request"] as Record<string, unknown>;
    event["request"] = {
      ...request,
      inputEditable: request["inputEditable"] === true,
      createdAt: new Date(String(request["createdAt"])),
      deadline: typeof request["deadline"] === "string" ? new Date(request["deadline"]) : undefined,
      // A request a worker of an earlier version stored has none.
      suggestions: Array.isArray(request["suggestions"]) ? request["suggestions"] : [],
    };
  }
  return event as unknown as AgentEvent;
}
