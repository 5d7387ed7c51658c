import { ReferenceDriver } from "@adaptor/driver/testing";
import { Agent, ErrInvalidOption, InvalidOptionError, isError } from "adaptor";
import { MemoryThreadStore } from "@adaptor/threadstore";
import { describe, expect, it } from "vitest";
import { a2aServer } from "../src/index.js";

describe("a2aServer options", () => {
  it("refuses runOptions.suspend with InvalidOptionError naming it when the runner is an Agent (it cannot resume a suspended turn)", async () => {
    await using agent = new Agent(new ReferenceDriver({ latencyMs: 0 }), { threadStore: new MemoryThreadStore() });
    const card = { name: "n", description: "d" };
    expect(() => a2aServer(agent.thread("t"), { url: "http://127.0.0.1:1", card, runOptions: { suspend: {} } })).not.toThrow();
    expect(() =>
      a2aServer(({ contextId }) => agent.thread(contextId), { url: "http://127.0.0.1:1", card, runOptions: { suspend: {} } }),
    ).not.toThrow();
    const make = (): unknown => a2aServer(agent, { url: "http://127.0.0.1:1", card, runOptions: { suspend: {} } });
    expect(make).toThrow(InvalidOptionError);
    let error: unknown;
    try {
      make();
    } catch (err) {
      error = err;
    }
    expect(isError(error, ErrInvalidOption)).toBe(true);
    expect((error as InvalidOptionError).field).toBe("runOptions.suspend");
  });

  it("refuses a bodyTimeoutMs or writeTimeoutMs that is not a positive timer duration with InvalidOptionError naming it", async () => {
    await using agent = new Agent(new ReferenceDriver({ latencyMs: 0 }));
    for (const field of ["bodyTimeoutMs", "writeTimeoutMs"] as const) {
      for (const value of [0, -1, Number.NaN, 2 ** 31, "30000"]) {
        let error: unknown;
        try {
          a2aServer(agent, { url: "http://127.0.0.1:1", card: { name: "n", description: "d" }, [field]: value as number });
        } catch (err) {
          error = err;
        }
        expect(isError(error, ErrInvalidOption)).toBe(true);
        expect((error as { field?: string }).field).toBe(field);
      }
    }
  });

  it("refuses a url that is not http or https", async () => {
    await using agent = new Agent(new ReferenceDriver({ latencyMs: 0 }));
    expect(() => a2aServer(agent, { url: "ftp://127.0.0.1/x", card: { name: "n", description: "d" } })).toThrow(TypeError);
  });
});
