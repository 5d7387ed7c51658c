import type { AnyMessage, Stream } from "@agentclientprotocol/sdk";
import type { CliProcess } from "@adaptor/driver/process";

/**
 * The agent's stdio as the ACP SDK's message stream: stdout framed as JSON Lines by the process
 * plumbing (so raw capture, line limits and containment stay in one place), stdin written one
 * JSON message per line. A stdout line that is not JSON goes to `onText`.
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
