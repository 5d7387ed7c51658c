// A handle's reads that wait (events, verdict, result) wait out a database restart but not a database that
// stays unreachable: after `heartbeatSeconds` without a read they reject as info() does, with DriverError
// SERVICE_UNAVAILABLE and the connection error as cause, instead of retrying for ever.
import { describe, expect, it } from "vitest";
import { DriverError, ErrCode } from "@adaptor/errors";
import { Fleet } from "@adaptor/fleet";
import { refusedLocalPort } from "@adaptor/testkit";

const RUN_ID = "01a24ea2-0000-7000-8000-000000000000";

describe("handle reads while the database stays unreachable", () => {
  it("events (following or not), verdict and result reject with DriverError SERVICE_UNAVAILABLE after heartbeatSeconds", async () => {
    const fleet = new Fleet({
      connectionString: `postgres://postgres@127.0.0.1:${await refusedLocalPort()}/postgres`,
      heartbeatSeconds: 10,
    });
    const handle = fleet.handle(RUN_ID);
    const first = async (events: AsyncIterable<unknown>) => {
      for await (const event of events) return event;
      return undefined;
    };
    try {
      const calls = {
        events: () => first(handle.events({ after: 0 })),
        "events follow:false": () => first(handle.events({ after: 0, follow: false })),
        verdict: () => handle.verdict(),
        result: () => handle.result(),
      };
      const errors = await Promise.all(
        Object.values(calls).map((call) =>
          call().then(
            () => "resolved",
            (e: unknown) => e,
          ),
        ),
      );
      for (const [index, error] of errors.entries()) {
        expect(error, Object.keys(calls)[index]).toBeInstanceOf(DriverError);
        expect(error).toMatchObject({ code: ErrCode.ServiceUnavailable, op: expect.stringMatching(/^fleet (events|verdict)$/) });
        expect((error as DriverError).cause).toMatchObject({ code: "ECONNREFUSED" });
      }
    } finally {
      await fleet.close();
    }
  }, 60_000);
});
