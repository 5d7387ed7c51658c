// A prompt with neither text nor an image is refused at every public entry point before anything
// starts; the resumes of suspended turns (which carry no prompt of their own) still run.
import { describe, expect, it } from "vitest";
import { MemoryThreadStore } from "@adaptor/threadstore";
import { Agent, InvalidOptionError, findError } from "../src/index.js";
import { scriptedDriver } from "./scripted-driver.js";

const EMPTY: unknown[] = ["", "   ", "\n\t ", [""], ["  ", { type: "text", text: "" }]];

async function refusal(run: Promise<unknown>): Promise<InvalidOptionError | undefined> {
  return findError(await run.catch((e: unknown) => e), InvalidOptionError);
}

describe("a prompt with no text and no image", () => {
  it("is refused by agent.run and agent.stream with InvalidOptionError field prompt, before the driver is called", async () => {
    const driver = scriptedDriver(async () => ({ text: "ok" }));
    await using agent = new Agent(driver);
    for (const prompt of EMPTY) {
      expect((await refusal(agent.run(prompt as string)))?.field, JSON.stringify(prompt)).toBe("prompt");
      expect((await refusal(agent.stream(prompt as string).result()))?.field, JSON.stringify(prompt)).toBe("prompt");
    }
    expect(driver.requests).toHaveLength(0);
    expect((await agent.run(" hi ")).text).toBe("ok");
  });

  it("is refused by thread.run and thread.stream, and the thread is not created", async () => {
    const driver = scriptedDriver(async () => ({ text: "ok" }));
    const store = new MemoryThreadStore();
    await using agent = new Agent(driver, { threadStore: store });
    for (const prompt of EMPTY) {
      expect((await refusal(agent.thread("t").run(prompt as string)))?.field).toBe("prompt");
      expect(
        (
          await refusal(
            agent
              .thread("t")
              .stream(prompt as string)
              .result(),
          )
        )?.field,
      ).toBe("prompt");
    }
    expect(driver.requests).toHaveLength(0);
    expect(await store.resolve({ key: "t" })).toBeUndefined();
  });
});
