import { describe, expect, it } from "vitest";
import { runDriver } from "@adaptor/driver/testing";
import { whenUserSays } from "@adaptor/testkit";
import { driverHarness } from "./support.js";

// Claude Code reports an API error twice: as a synthetic assistant message (model "<synthetic>",
// `is_api_error_message: true`, text "API Error: 400 …") and as the error result. The synthetic
// message is not the model's text: it must not stream as a text-delta (a bridge or A2A client
// would get the provider's raw error text), only the failure keeps it.
const UPSTREAM = "gateway: key sk-ant-api03-ABCDEFGHIJKLMNOPQRSTUVWXYZ012345 DB_PASSWORD=hunter2";

describe("an API error on the real claude binary", () => {
  it("is the run's failure message and never a text-delta or assistant transcript text", async () => {
    const h = await driverHarness([
      {
        name: "api-error",
        when: whenUserSays("boom"),
        reply: { error: { status: 400, type: "invalid_request_error", message: UPSTREAM } },
      },
    ]);
    try {
      const run = await runDriver(h.driver, { prompt: "boom" });
      expect(run.error).toBeUndefined();
      expect(run.response?.failure?.reason).toBe("agent_error");
      expect(run.response?.failure?.message).toBe(`API Error: 400 ${UPSTREAM}`);
      const texts = run.recording.events.flatMap(({ event }) => (event.type === "text-delta" ? [event.text] : []));
      expect(texts).toEqual([]);
      expect(run.response?.transcript.filter((item) => item.kind === "assistant")).toEqual([]);
      const notice = run.recording.events.find(({ event }) => event.type === "notice" && event.message === "api error");
      expect(notice?.event).toMatchObject({
        type: "notice",
        kind: "runtime",
        data: { apiErrorStatus: 400, apiErrorType: "invalid_request_error" },
      });
    } finally {
      await h.close();
    }
  });
});
