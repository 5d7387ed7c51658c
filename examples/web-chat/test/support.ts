import { createParser, type EventSourceMessage } from "eventsource-parser";

// What the web chat's API tests read: the SSE messages of the `raw` protocol.

/** One SSE message: its id and JSON data. */
export interface Message {
  readonly id: string | undefined;
  readonly data: Record<string, unknown>;
}

/** Reads the SSE `response` until `stop` matches a message (included). */
export async function readUntil(reader: ReadableStreamDefaultReader<Uint8Array>, stop: (message: Message) => boolean): Promise<Message[]> {
  const read: Message[] = [];
  const queue: EventSourceMessage[] = [];
  const parser = createParser({ onEvent: (event) => queue.push(event) });
  const decoder = new TextDecoder();
  for (;;) {
    while (queue.length > 0) {
      const event = queue.shift()!;
      const message = { id: event.id, data: JSON.parse(event.data) as Record<string, unknown> };
      read.push(message);
      if (stop(message)) return read;
    }
    const chunk = await reader.read();
    if (chunk.done) return read;
    parser.feed(decoder.decode(chunk.value, { stream: true }));
  }
}

/** The headers of the page's POSTs. */
export const json = { "content-type": "application/json", accept: "text/event-stream" };
/** An approval card. */
export const isApproval = (m: Message): boolean => m.data["type"] === "approval-request";
