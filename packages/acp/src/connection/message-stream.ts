import type { AnyMessage, Stream } from "@agentclientprotocol/sdk";
import type { CliProcess } from "@adaptor/driver/process";
import { DriverError, ErrCode } from "@adaptor/errors";
import { normalizeToolKinds } from "./tool-kinds.js";

/** Notifications handed over between two turns of the event loop. */
const YIELD_EVERY = 64;

/** A stdout line that starts like a JSON-RPC message but does not parse: a message cut off. */
function cutOff(text: string): boolean {
  const trimmed = text.trimStart();
  return trimmed.startsWith("{") && trimmed.includes('"jsonrpc"');
}

/** A parsed stdout line that can be a JSON-RPC message: a JSON object (not `null`, an array or a scalar). */
function messageShaped(value: unknown): value is AnyMessage {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * The agent's stdio as the ACP SDK's message stream: stdout framed as JSON Lines by the process
 * plumbing (so raw capture, line limits and containment stay in one place), stdin written one
 * JSON message per line. A stdout line that is not a JSON object (not JSON, or JSON `null`, a number,
 * a string, a boolean, an array: no message) goes to `onText`, except one that starts
 * like a JSON-RPC message (`{` ... `"jsonrpc"`) and does not parse: an answer cut off, which would
 * leave its request waiting forever, so the stream fails with a DriverError `DRIVER` (op `"read"`).
 * An over-long line fails it with the plumbing's `RESOURCE_EXHAUSTED`. A tool call's `kind` is made
 * readable first (`normalizeToolKinds`: an unknown kind is `other`, never dropped).
 *
 * The SDK reads the next message as soon as it has dispatched one, without waiting for its
 * handler: `pace` is what the stream awaits before handing over a notification (a
 * `session/update`, as frequent as the agent writes them), so a run whose host has half its event
 * buffer waiting lets the host take events before more are read (`DriverSink.ready`), and every
 * {@link YIELD_EVERY} notifications the event loop turns, so a flooding agent cannot keep the
 * host's timers and I/O waiting.
 */
export function messageStream(child: CliProcess, onText: (line: string) => void, pace?: () => Promise<void> | undefined): Stream {
  let notifications = 0;
  const lines = child.lines()[Symbol.asyncIterator]();
  const readable = new ReadableStream<AnyMessage>({
    async pull(controller) {
      try {
        for (;;) {
          const next = await lines.next();
          if (next.done) {
            controller.close();
            return;
          }
          if (next.value.kind === "json" && messageShaped(next.value.value)) {
            const message = next.value.value;
            normalizeToolKinds(message);
            if ("method" in message && !("id" in message)) {
              const wait = pace?.();
              if (wait) await wait;
              if (++notifications % YIELD_EVERY === 0) await new Promise<void>((resolve) => setImmediate(resolve));
            }
            controller.enqueue(message);
            return;
          }
          if (cutOff(next.value.text)) {
            const shown = next.value.text.length > 200 ? `${next.value.text.slice(0, 200)}...` : next.value.text;
            throw new DriverError({
              op: "read",
              device: child.device,
              code: ErrCode.Driver,
              cause: `a stdout line is a JSON-RPC message cut off (not valid JSON): ${shown}`,
            });
          }
          if (next.value.text.trim() !== "") onText(next.value.text);
        }
      } catch (error) {
        controller.error(error);
      }
    },
    async cancel() {
      await lines.return?.();
    },
  });
  const writable = new WritableStream<AnyMessage>({
    write: (message) => child.writeJson(message),
  });
  return { readable, writable };
}
