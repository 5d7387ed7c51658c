// A fleet call that cannot reach PostgreSQL (its start included) rejects as the thread store does for the same
// condition: a DriverError with code SERVICE_UNAVAILABLE (retryable), the pg error as its cause.
import { describe, expect, it } from "vitest";
import { DriverError, ErrCode } from "@adaptor/errors";
import { Fleet } from "@adaptor/fleet";
import { refusedLocalPort } from "@adaptor/testkit";

describe("fleet calls without a database", () => {
  it("submit and answer reject with DriverError SERVICE_UNAVAILABLE, the connection error as cause", async () => {
    const fleet = new Fleet({ connectionString: `postgres://postgres@127.0.0.1:${await refusedLocalPort()}/postgres` });
    try {
      for (const call of [() => fleet.submit("hello"), () => fleet.answer("some-approval", { outcome: "approve" })]) {
        const error = await call().catch((e: unknown) => e);
        expect(error).toBeInstanceOf(DriverError);
        expect(error).toMatchObject({ code: ErrCode.ServiceUnavailable, op: expect.stringMatching(/^fleet (start|submit|answer)$/) });
        expect((error as DriverError).cause).toMatchObject({ code: "ECONNREFUSED" });
      }
    } finally {
      await fleet.close();
    }
  });
});
