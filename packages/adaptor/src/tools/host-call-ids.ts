import { isDeepStrictEqual } from "node:util";
import type { DriverEvent } from "@adaptor/driver";
import { knownInput, type McpServerTools } from "@adaptor/driver/kit";
import { hostToolOf } from "./host-tool-of.js";

/** One `tool-call` of a host tool the run reported and no host-tool call has claimed yet. */
interface ReportedCall {
  readonly id: string;
  readonly name: string;
  input: unknown;
}

/** A host-tool call waiting for its `tool-call` event. */
interface Waiter {
  readonly tool: string;
  readonly args: unknown;
  readonly settle: (id: string | undefined) => void;
}

/** Reported calls kept for matching at most; the oldest go first beyond it. */
const MAX_UNCLAIMED = 256;

/**
 * How long a host-tool call waits for its `tool-call` event when the agent has not reported it
 * yet (its notice and its MCP request travel apart), ms.
 */
export const CLAIM_WAIT_MS = 1_000;

/**
 * Finds the `tool-call` event of a host-tool call whose CLI sent no call id with its MCP request
 * (Gemini CLI, codex-acp), so the call's approval, host `tool-result` and denial carry the id the
 * run's events already gave it. Fed every driver event of the run ({@link observe}); a host-tool
 * call then claims ({@link claim}) the oldest reported, unclaimed call of that tool whose input is
 * its arguments, else the oldest whose input the agent did not report (absent, `null` or `{}`), waiting
 * up to {@link CLAIM_WAIT_MS} for one to be reported. Each reported call is claimed at most once.
 */
export class HostCallIds {
  readonly #server: McpServerTools;
  readonly #unclaimed: ReportedCall[] = [];
  readonly #claimed = new Set<string>();
  readonly #waiters: Waiter[] = [];

  /** `server` is the host-tool server's name in the run's `mcpServers`, `tools` its tools' names. */
  constructor(server: string, tools: Iterable<string>) {
    this.#server = { name: server, tools: new Set(tools) };
  }

  /** Notes the run's `tool-call` events of host tools (and the input a later `end` phase gives). */
  observe(event: DriverEvent): void {
    if (event.type !== "tool-call" || this.#claimed.has(event.id)) return;
    const known = this.#unclaimed.find((call) => call.id === event.id);
    if (known) {
      if (event.input !== undefined) known.input = event.input;
    } else {
      const tool = hostToolOf(event.name, this.#server);
      if (tool === undefined) return;
      this.#unclaimed.push({ id: event.id, name: tool, input: event.input });
      if (this.#unclaimed.length > MAX_UNCLAIMED) this.#unclaimed.shift();
    }
    for (const waiter of [...this.#waiters]) {
      const id = this.#take(waiter.tool, waiter.args);
      if (id !== undefined) waiter.settle(id);
    }
  }

  /**
   * The id of the reported call of `tool` that a call with `args` is, now claimed; `undefined`
   * when none fits within {@link CLAIM_WAIT_MS} (the agent reports it differently or not at all)
   * or `signal` aborts first.
   */
  async claim(tool: string, args: unknown, signal?: AbortSignal): Promise<string | undefined> {
    const now = this.#take(tool, args);
    if (now !== undefined || signal?.aborted) return now;
    return new Promise((resolve) => {
      const settle = (id: string | undefined): void => {
        clearTimeout(timer);
        signal?.removeEventListener("abort", abort);
        const at = this.#waiters.indexOf(waiter);
        if (at !== -1) this.#waiters.splice(at, 1);
        resolve(id);
      };
      const abort = (): void => settle(undefined);
      const waiter: Waiter = { tool, args, settle };
      const timer = setTimeout(abort, CLAIM_WAIT_MS);
      signal?.addEventListener("abort", abort, { once: true });
      this.#waiters.push(waiter);
    });
  }

  /** Claims the best reported call for `tool` with `args`, if any. */
  #take(tool: string, args: unknown): string | undefined {
    const fits = (call: ReportedCall): boolean => call.name === tool;
    const exact = this.#unclaimed.findIndex((call) => fits(call) && sameArguments(call.input, args));
    const at = exact !== -1 ? exact : this.#unclaimed.findIndex((call) => fits(call) && !knownInput(call.input));
    if (at === -1) return undefined;
    const [call] = this.#unclaimed.splice(at, 1);
    this.#claimed.add(call!.id);
    return call!.id;
  }
}

/** The reported input is the call's arguments, or wraps them (`{ server, tool, arguments }`, codex-acp). */
function sameArguments(input: unknown, args: unknown): boolean {
  const given = args ?? {};
  if (isDeepStrictEqual(input, given)) return true;
  if (typeof input !== "object" || input === null || !("arguments" in input)) return false;
  return isDeepStrictEqual((input as { arguments: unknown }).arguments ?? {}, given);
}
