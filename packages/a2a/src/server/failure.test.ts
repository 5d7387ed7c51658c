import { MemoryThreadStore } from "@adaptor/threadstore";
import { Agent } from "adaptor";
import { ReferenceDriver } from "@adaptor/driver/testing";
import { describe, expect, it } from "vitest";
import { taskFailure } from "./failure.js";

describe("taskFailure", () => {
  it("a busy thread is the generic internal error: the lease holder and its expiry stay on the host", async () => {
    const store = new MemoryThreadStore();
    await store.acquireLease("k", "worker@db01.corp.internal pid=4242", 60_000);
    await using agent = new Agent(new ReferenceDriver({ latencyMs: 0 }), { threadStore: store });
    const error = await agent
      .thread("k")
      .run("hi")
      .catch((e: unknown) => e);
    expect((error as Error).message).toContain("db01.corp.internal");
    expect(taskFailure(error, [])).toEqual({ code: "error", message: "error: internal error", retryable: true });
  });
});
