import type { ApprovalAsk, ApprovalDecision, DriverEvent, DriverResponse, PermissionDenial } from "@adaptor/driver";
import { OffHeapText } from "./off-heap-text.js";

/** What a driver reports of a turn its signal stopped (`DriverSink.partial`), or its whole response. */
export type DriverOutput = Partial<DriverResponse>;

/**
 * The streamed text is kept in pieces of at least this many characters, each joined once from its
 * deltas and written to an {@link OffHeapText}: a string appended to delta by delta stays a tree of
 * every delta (a node per append, the deltas themselves held) until read whole, about 20 times the
 * text's own size for a long turn of short deltas (measured: 37 MiB for 200,000 deltas, 1.6 MB of
 * text), and pieces kept as strings are copied and promoted by V8's collector for the whole turn.
 * Small, so that each of many runs in flight holds few deltas unjoined (a run's first 1,000 deltas
 * were 56 KiB as a tree).
 */
const PIECE_CHARS = 1024;

/**
 * What a run's events and approvals showed, kept for the Result of a run the SDK stopped before
 * the driver answered (a denial whose fallback aborts, an approval nobody answered in time, a
 * budget the SDK holds): the text streamed, the model responses (`model.response` notices, counted
 * only for a driver that reports them: `countsResponses`) and each tool call whose approval the
 * host's decision refused. {@link complete} fills the driver's partial output with them.
 */
export class RunRecord {
  readonly #countsResponses: boolean;
  /** The text streamed before {@link #deltas}. */
  readonly #text = new OffHeapText();
  /** The deltas streamed since the last piece, and their length. */
  #deltas: string[] = [];
  #deltaChars = 0;
  #responses = 0;
  readonly #denials: PermissionDenial[] = [];

  constructor(countsResponses: boolean) {
    this.#countsResponses = countsResponses;
  }

  /** The text of the run's `text-delta` events so far. */
  get text(): string {
    this.#closePiece();
    return this.#text.toString();
  }

  /** Takes one driver event of the run. */
  observe(event: DriverEvent): void {
    if (event.type === "text-delta") {
      this.#deltas.push(event.text);
      this.#deltaChars += event.text.length;
      if (this.#deltaChars >= PIECE_CHARS) this.#closePiece();
    } else if (event.type === "notice" && event.kind === "model.response") this.#responses += 1;
  }

  /**
   * The run waits (it asked for an approval): the deltas since the last piece go into the text now,
   * not when more arrive. A delta's text may be a slice of the stdout chunk it was read from, which
   * it keeps alive: held through the wait, each run waiting at once would keep its last chunks.
   */
  waiting(): void {
    this.#closePiece();
  }

  /** Joins the deltas since the last piece into one more piece of the text (the deltas can go). */
  #closePiece(): void {
    if (this.#deltas.length === 0) return;
    this.#text.append(this.#deltas.join(""));
    this.#deltas = [];
    this.#deltaChars = 0;
  }

  /**
   * Takes the host's decision on `ask`: a denied tool call (one with a tool name and call id) is a
   * permission denial, listed once however often it was asked.
   */
  decided(ask: ApprovalAsk, decision: ApprovalDecision): void {
    if (decision.outcome !== "deny" || ask.toolName === undefined || ask.toolCallId === undefined) return;
    if (this.#denials.some((denial) => denial.toolCallId === ask.toolCallId)) return;
    this.#denials.push({ toolName: ask.toolName, toolCallId: ask.toolCallId, input: ask.input });
  }

  /**
   * `output` (the driver's partial report; undefined: none) completed with what the run showed:
   * its text when the driver gave none, `numTurns` (the `model.response` notices) when it gave
   * none and counts them, and `permissionDenials`: the driver's, then each refused call it does
   * not list (left unset when the driver reports none and the host refused none: a driver that
   * cannot know its CLI's own refusals). Every other field is the driver's.
   */
  complete(output: DriverOutput | undefined): DriverOutput {
    const reported = output?.permissionDenials;
    const listed = new Set((reported ?? []).map((denial) => denial.toolCallId));
    const added = this.#denials.filter((denial) => !listed.has(denial.toolCallId));
    const numTurns = output?.numTurns ?? (this.#countsResponses ? this.#responses : undefined);
    return {
      ...output,
      text: output?.text || this.text,
      ...(numTurns !== undefined ? { numTurns } : {}),
      ...(reported || added.length > 0 ? { permissionDenials: [...(reported ?? []), ...added] } : {}),
    };
  }
}
