import { describe, expect, it } from "vitest";
import type { DriverRequest, DriverResponse, DriverSink } from "@adaptor/driver";
import { ReferenceDriver } from "@adaptor/driver/testing";
import { Agent } from "adaptor";
import { RunChannel } from "../src/run/run-channel.js";

/** The reference driver, after a burst of notices a consumer has not read yet. */
class NoisyDriver extends ReferenceDriver {
  override run(request: DriverRequest, sink: DriverSink, signal: AbortSignal): Promise<DriverResponse> {
    for (let i = 0; i < 5000; i++) sink.emit({ type: "notice", kind: "warning", message: `w${i}` });
    return super.run(request, sink, signal);
  }
}

describe("a run's backlog drains without holding the event loop", () => {
  it("a timer set as the channel starts on a 5,000-event backlog runs before the backlog is drained", async () => {
    const stream = new Agent(new NoisyDriver({ latencyMs: 0 })).stream("hello");
    await stream.result(); // every event now waits in the run's buffer
    let frames = 0;
    const channel = new RunChannel({
      key: "k",
      stream,
      encode: (event) => [{ id: ++frames, text: `data: ${event.type}\n\n` }],
      encodeGap: () => "",
      replayFrames: 100,
      replayBytes: 1 << 20,
      reconnectGraceMs: 60_000,
      maxWatchers: 1,
      onApproval: () => undefined,
      onSettled: () => undefined,
    });
    const seenByTimer = await new Promise<{ finished: boolean; frames: number }>((resolve) =>
      setImmediate(() => resolve({ finished: channel.finished, frames })),
    );
    expect(seenByTimer.finished).toBe(false);
    expect(seenByTimer.frames).toBeLessThan(5000);
    await channel.done;
    channel.dispose();
    expect(channel.finished).toBe(true);
    expect(frames).toBeGreaterThan(5000);
  });
});
