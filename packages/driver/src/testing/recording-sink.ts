import type { ApprovalAsk, ApprovalDecision } from "../spi/approval.js";
import type { DriverSink } from "../spi/driver.js";
import type { DriverEvent } from "../spi/events.js";

/** How a {@link RecordingSink} answers approvals: a decision, or a function of the ask (may be async or throw). */
export type ApprovalPolicyFn = (ask: ApprovalAsk, index: number) => ApprovalDecision | Promise<ApprovalDecision>;

/** One event as the recording sink saw it: a strictly increasing `sequence` from 1 and the arrival time. */
export interface RecordedEvent {
  /** Arrival order, from 1. */
  readonly sequence: number;
  /** Arrival time in ms since the epoch. */
  readonly time: number;
  /** The event as the driver emitted it. */
  readonly event: DriverEvent;
}

/**
 * A {@link DriverSink} that records everything a driver emits and asks, for tests that drive a
 * `Driver` directly through the SPI (no `adaptor` SDK in between). Approvals are answered by
 * `onApproval` (default: approve); a throwing or rejecting `onApproval` is answered with a deny, as
 * the SDK guarantees (`requestApproval` always resolves).
 */
export interface RecordingSink {
  /** The sink to pass to `driver.run`. */
  readonly sink: DriverSink;
  /** Everything emitted, in order. */
  readonly events: RecordedEvent[];
  /** Every approval asked, in order. */
  readonly asks: ApprovalAsk[];
  /** The decision handed back for each ask (same index as {@link asks}), once made. */
  readonly decisions: ApprovalDecision[];
  /** Emitted events of one type, payloads only. */
  ofType<T extends DriverEvent["type"]>(type: T): Extract<DriverEvent, { type: T }>[];
  /** The pids of `process` `spawn` events. */
  pids(): number[];
  /** Concatenated `text-delta` text. */
  text(): string;
  /**
   * Stops recording: later `emit`s are counted in {@link lateEvents} instead (a driver must not
   * emit after `run()` settled), later asks are denied at once.
   */
  seal(): void;
  /** Events emitted after {@link seal}. */
  readonly lateEvents: DriverEvent[];
}

/** Makes a {@link RecordingSink}. */
export function createRecordingSink(options: { onApproval?: ApprovalPolicyFn } = {}): RecordingSink {
  const events: RecordedEvent[] = [];
  const asks: ApprovalAsk[] = [];
  const decisions: ApprovalDecision[] = [];
  const lateEvents: DriverEvent[] = [];
  let sealed = false;
  const onApproval = options.onApproval ?? (() => ({ outcome: "approve" }) as const);
  const sink: DriverSink = {
    emit(event) {
      if (sealed) lateEvents.push(event);
      else events.push({ sequence: events.length + 1, time: Date.now(), event });
    },
    async requestApproval(ask) {
      const index = asks.length;
      asks.push(ask);
      let decision: ApprovalDecision;
      if (sealed) decision = { outcome: "deny", reason: "run ended" };
      else {
        try {
          decision = await onApproval(ask, index);
        } catch {
          decision = { outcome: "deny", reason: "approval handler failed" };
        }
      }
      decisions[index] = decision;
      return decision;
    },
  };
  return {
    sink,
    events,
    asks,
    decisions,
    lateEvents,
    ofType: <T extends DriverEvent["type"]>(type: T) =>
      events.map((e) => e.event).filter((e): e is Extract<DriverEvent, { type: T }> => e.type === type),
    pids: () =>
      events.flatMap((e) => (e.event.type === "process" && e.event.kind === "spawn" && e.event.pid !== undefined ? [e.event.pid] : [])),
    text: () => events.map((e) => (e.event.type === "text-delta" ? e.event.text : "")).join(""),
    seal: () => {
      sealed = true;
    },
  };
}
