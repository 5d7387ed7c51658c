// Helpers of the client tests: agents and plain servers closed after each test, a promise's
// rejection, a stream drained.
import { afterEach } from "vitest";
import type { A2AStreamEvent } from "../src/index.js";
import { startPlainServer, startSdkAgent, type PlainServer, type SdkAgent } from "./sdk-server.js";

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

/** Runs `close` after the test. */
export function closeAfter(close: () => Promise<void>): void {
  cleanups.push(close);
}

/** A scripted agent on the SDK server, closed after the test. */
export async function agent(...args: Parameters<typeof startSdkAgent>): Promise<SdkAgent> {
  const started = await startSdkAgent(...args);
  cleanups.push(() => started.close());
  return started;
}

/** A plain HTTP server, closed after the test. */
export async function plain(...args: Parameters<typeof startPlainServer>): Promise<PlainServer> {
  const started = await startPlainServer(...args);
  cleanups.push(() => started.close());
  return started;
}

/** What `promise` rejects with; fails when it resolves. */
export async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error("expected a rejection");
}

/** Every event of `stream`. */
export async function drain(stream: AsyncIterable<A2AStreamEvent>): Promise<A2AStreamEvent[]> {
  const events: A2AStreamEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}
