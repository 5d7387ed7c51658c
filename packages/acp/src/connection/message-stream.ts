import type { AnyMessage, Stream } from "@agentclientprotocol/sdk";
import type { CliProcess } from "@adaptor/driver/process";
import { DriverError, ErrCode } from "@adaptor/errors";

/** A stdout line that starts like a JSON-RPC message but does not parse: a message cut off. */
function cutOff(text: string): boolean {
  const trimmed = text.trimStart();
  return trimmed.startsWith("{") && trimmed.includes('"jsonrpc"');
}

/**
 * The agent's stdio as the ACP SDK's message stream: stdout framed as JSON Lines by the process
 * plumbing (so raw capture, line limits and containment stay in one place), stdin written one
 * JSON message per line. A stdout line that is not JSON goes to `onText`, except one that starts
 * like a JSON-RPC message (`{` ... `"jsonrpc"`) and does not parse: an answer cut off, which would
 * leave its request waiting forever, so the stream fails with a DriverError `DRIVER` (op `"read"`).
 * An over-long line fails it with the plumbing's `RESOURCE_EXHAUSTED`.
 */
export function messageStream(child: CliProcess, onText: (line: string) => void): Stream {
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
          if (next.value.kind === "json") {
            controller.enqueue(next.value.value as AnyMessage);
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
