import type { ApprovalModes } from "@adaptor/driver";
import type { AgentEvent } from "../events/agent-event.js";
import type { EventQueue } from "../events/event-queue.js";
import { splitPrompt, type Prompt } from "../prompt/prompt.js";
import { readImages } from "../prompt/read-images.js";
import type { Result } from "../result/result.js";
import type { TurnControls } from "./turn-controls.js";

/**
 * A run in flight: an `AsyncIterable` of {@link AgentEvent}s (`run-finished` always last) and
 * the verdict from {@link result}. Returned at once by `agent.stream()`, which never throws;
 * setup failures arrive through `result()`.
 *
 * Iterate once. Breaking out of the loop before `run-finished` cancels the run.
 */
export class Stream implements AsyncIterable<AgentEvent> {
  /** UUID v7 of the run. */
  readonly runId: string;
  readonly #queue: EventQueue;
  readonly #result: Promise<Result>;
  readonly #controller: AbortController;
  readonly #controls: TurnControls;
  #iterated = false;

  /** @internal Streams are made by `Agent.stream()`. */
  constructor(runId: string, queue: EventQueue, controller: AbortController, result: Promise<Result>, controls: TurnControls) {
    this.runId = runId;
    this.#queue = queue;
    this.#controller = controller;
    this.#result = result;
    this.#controls = controls;
    // The verdict is always observable through result(); never an unhandled rejection.
    result.catch(() => undefined);
  }

  /**
   * The verdict, repeatable (the same promise every call): resolves the {@link Result}; rejects
   * with a `RunError` for a business failure, else with an ordinary error (cause chain kept).
   */
  result(): Promise<Result> {
    return this.#result;
  }

  /**
   * Cancels the run: the CLI is interrupted, then terminated. Idempotent. The verdict rejects with
   * `reason` (default: a `DOMException` named `"AbortError"`), an infrastructure error that does not
   * match `ErrRunCancelled`.
   */
  cancel(reason?: unknown): void {
    if (this.#controller.signal.aborted) return;
    this.#controller.abort(reason ?? new DOMException("The run was cancelled", "AbortError"));
  }

  /**
   * Interrupts the running turn, unlike {@link cancel} keeping the conversation and the CLI process:
   * the CLI stops the turn, the verdict resolves a {@link Result} with `status: "interrupted"` (the
   * partial text, usage and transcript; `run-finished` has `interrupted: true`), and a thread
   * commits the interrupted turn as its checkpoint, so its next turn continues after what the
   * interrupted one did (on the same process when it is reused). An approval request pending then
   * expires (the CLI gets a deny; no `onReject` fallback, abort or retry, applies to it). Waits for
   * the turn to start when called early. A CLI that does not end the turn within 3 × the driver's `killGraceMs` plus
   * 5,000 ms of the interrupt (11 s by default) is stopped as by {@link cancel}: the verdict then
   * rejects with a `DriverError` `TIMEOUT` (op `"interrupt"`).
   *
   * @returns `true` once the CLI took the interrupt: Claude Code answered its `interrupt` control
   * request (or ended the turn as interrupted); Codex app-server answered `turn/interrupt` with the
   * turn not completed some other way; an ACP agent was sent `session/cancel` (a notification ACP
   * has no answer to: the verdict tells whether the turn ended interrupted). `false` when the run
   * had ended (nothing to interrupt), or ended or began ending before the CLI answered (that bound,
   * a cancel, the stall timeout, the CLI exiting); it never rejects for a run that ended.
   * @throws FeatureUnsupportedError (rejected) when the driver cannot interrupt a turn
   * (`capabilities.turnControl.interrupt`).
   */
  interrupt(): Promise<boolean> {
    return this.#controls.request("interrupt", (control) => control.interrupt?.());
  }

  /**
   * Gives the running turn another user message, which the agent takes in at its next model request
   * of the same turn; a `notice` of kind `input.accepted` (`data.text`) marks where. Waits for the
   * turn to start when called early.
   *
   * @param message - the message: text, or a list of parts as a run's prompt takes (text and
   * images: `data`, `path` or a `data:` URL; read and checked as a prompt's are, before the turn is
   * waited for). The images go to the model before the text (the text parts joined by a blank line),
   * on a driver that declares `capabilities.turnControl.sendImages` (Claude Code: image blocks of
   * the user line; Codex app-server: image input items of `turn/steer`).
   * @returns `true` once the CLI took the message for the running turn (Claude Code queues it and
   * starts it at the turn's next model request; when the turn's last response was already under
   * way, it answers the message right after, and the run goes on until that answer: its output,
   * usage and cost are the run's); `false` when the run had ended, or its turn was ending as the
   * message came (not delivered, no `input.accepted`).
   * @throws TypeError (rejected) for a message without text (not only whitespace) or an image;
   * InvalidOptionError (rejected; field `prompt` or `prompt[i]`) for a malformed part or an image
   * that cannot be read, is not a PNG, JPEG, GIF or WebP, or is too large; FeatureUnsupportedError
   * (rejected) when the driver cannot take a message during a turn (`capabilities.turnControl.send`,
   * feature `send`), or the message has an image and the driver cannot give one to a running turn
   * (`capabilities.turnControl.sendImages`, feature `images`), before anything is read or written; a
   * DriverError (the CLI's protocol error as its `cause`) when the CLI refused the message for
   * another reason.
   */
  async send(message: Prompt): Promise<boolean> {
    const { text, images } = splitPrompt(message);
    if (text.trim() === "" && images.length === 0) {
      throw new TypeError(`stream ${this.runId}: send() needs a non-empty text or an image`);
    }
    if (images.length > 0) this.#controls.require("send", "sendImages", "images", "its CLI cannot take an image during a turn");
    const read = images.length > 0 ? await readImages(images) : undefined;
    return this.#controls.request("send", (control) => (read ? control.send?.(text, read) : control.send?.(text)));
  }

  /**
   * Switches the model for the rest of the running turn (and, on a thread whose process is reused,
   * for its later turns on that process that name no `model`: a turn given a `model`, as a run or
   * Agent option, runs on that one). Called before the turn started (before the driver gave the
   * CLI the prompt), it waits for it and applies to the whole turn. Called during the turn, it
   * applies to the model requests the turn starts after the switch (on Claude, one asked while
   * the CLI is still starting its process's first turn is made once the CLI has begun the turn,
   * whose first request then runs on the previous model): a response already under way finishes
   * on the previous model, and a turn whose last response was under way makes no request on the
   * new one (`result.model` and each `model.response` notice's `data.model` name the model that
   * answered). The CLI may switch to another model than `model` (Claude Code resolves an alias,
   * replaces a retired id): a `notice` of kind `model.resolved` or `model.substituted` then names
   * both, once. A switch the CLI makes as asked gives no such notice.
   *
   * @param model - a model id or an alias the CLI knows, non-empty.
   * @returns `true` once the CLI switched while the turn was still running; `false` when the run
   * had ended, or the turn ended before the CLI switched (the switch reached no request of this run).
   * @throws TypeError (rejected) for an empty `model`; FeatureUnsupportedError (rejected) when the
   * driver cannot switch models during a turn (`capabilities.turnControl.setModel`); a DriverError
   * when the CLI refused the model.
   */
  setModel(model: string): Promise<boolean> {
    if (typeof model !== "string" || model.trim() === "") {
      return Promise.reject(new TypeError(`stream ${this.runId}: setModel() needs a non-empty model`));
    }
    return this.#controls.request("setModel", (control) => control.setModel?.(model));
  }

  /**
   * Changes how the rest of the run's approvals are decided, as `policy.approvals` does at launch
   * (kinds left out keep their mode; `inherit` is the kind's default). Asks already waiting for the
   * host keep waiting; later ones follow the new modes (e.g. `{ permission: "auto_approve" }`
   * approves the next tool calls without an `approval-request` event, recorded in the
   * `approval.resolved` notice with `data.auto`). A `permission` switch also reaches the CLI where
   * it must be told to ask (Claude Code launched to run calls unasked); a `notice` `approval.mode`
   * marks when it took effect there, and a tool call that then runs unasked under `ask` or
   * `auto_deny` fails the run `policy_violation` (each call judged by the mode in effect when it
   * started). Only for a driver that declares `capabilities.turnControl.approvalMode`.
   *
   * @returns `true` once applied (a switch the CLI must be told of: once it took effect there);
   * `false` when the run (or the turn, before the CLI took the switch) had ended.
   * @throws FeatureUnsupportedError (rejected) when the driver does not declare it;
   * HumanDecisionModeUnsupportedError (rejected) for a mode the driver does not support for that
   * kind; InvalidPolicyError (rejected, field `approvals.permission`, nothing changed) for a switch
   * to `auto_approve` while the run holds a deny rule (`policy.approvals.rules`, or remembered
   * with an answer): the auto mode would decide before the rule, as a policy giving both is
   * refused at launch (a switch to `auto_deny`, a lock-down, is always made); TypeError (rejected) for `modes` that is not an object (a string such as
   * `"acceptEdits"`, `null`) or an unknown kind; a DriverError when the CLI refused the switch
   * (the run's approvals then stay under the modes they had before the call).
   */
  setApprovalMode(modes: ApprovalModes): Promise<boolean> {
    try {
      return Promise.resolve(this.#controls.approvalModes(modes));
    } catch (error) {
      return Promise.reject(error as Error);
    }
  }

  /** Yields the run's events in order. A second iteration throws `TypeError`. */
  [Symbol.asyncIterator](): AsyncIterator<AgentEvent> {
    if (this.#iterated) throw new TypeError(`stream ${this.runId}: events can be iterated once`);
    this.#iterated = true;
    const queue = this.#queue;
    let finished = false;
    let stopped = false;
    return {
      next: () => {
        if (stopped) return Promise.resolve({ done: true, value: undefined });
        // Fast path without a generator: one settled promise per buffered event.
        const event = queue.take();
        if (event) {
          if (event.type === "run-finished") finished = true;
          return Promise.resolve({ done: false, value: event });
        }
        return queue.next().then((next) => {
          if (stopped) return { done: true, value: undefined };
          if (!next.done && next.value.type === "run-finished") finished = true;
          return next;
        });
      },
      return: () => {
        if (!finished) this.cancel(new DOMException("The stream consumer stopped reading", "AbortError"));
        stopped = true;
        return Promise.resolve({ done: true, value: undefined });
      },
    };
  }
}
