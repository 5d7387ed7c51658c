import { describe, expect, it } from "vitest";
import { findError, InvalidOptionError } from "@adaptor/errors";
import { CodexDriver } from "./codex-driver.js";

const LIMIT = 1024 * 1024;
const sink = { emit: () => undefined } as never;

async function outcome(transport: "app-server" | "exec", prompt: string): Promise<unknown> {
  // A command that does not exist: a run that got past the checks fails to spawn (NOT_FOUND).
  const driver = new CodexDriver({ command: "/nonexistent/codex", transport });
  try {
    return await driver.run({ runId: "r", prompt } as never, sink, new AbortController().signal);
  } catch (error) {
    return error;
  } finally {
    await driver.close();
  }
}

describe("a codex prompt over codex's input limit", () => {
  it.each(["app-server", "exec"] as const)(
    "is refused on %s before launch with InvalidOptionError field prompt naming the limit",
    async (transport) => {
      const refused = findError(await outcome(transport, "x".repeat(LIMIT + 1)), InvalidOptionError);
      expect(refused?.field).toBe("prompt");
      expect(refused?.message).toContain(`${LIMIT + 1} characters`);
      expect(refused?.message).toContain(`at most ${LIMIT}`);
    },
  );

  it("counts characters, not UTF-16 code units: a prompt of exactly the limit in astral characters is launched", async () => {
    const launched = await outcome("exec", "🙂".repeat(LIMIT));
    expect(findError(launched, InvalidOptionError)).toBeUndefined();
    expect(String((launched as Error).message)).toMatch(/nonexistent/);
  });
});
