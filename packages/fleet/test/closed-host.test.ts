import { afterEach, describe, expect, it } from "vitest";
import { ErrFleetClosed, Fleet, FleetClosedError } from "@adaptor/fleet";
import { isError } from "@adaptor/errors";
import { PG_URL, freshSchema, skipWithoutServer } from "./support/pg.js";

/** What `promise` rejected with (or `"resolved"`). */
const rejection = (promise: Promise<unknown>): Promise<unknown> =>
  promise.then(
    () => "resolved",
    (error: unknown) => error,
  );

if (!PG_URL) {
  skipWithoutServer("fleet closed host");
} else {
  const url = PG_URL;
  const closers: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const close of closers.splice(0).reverse()) await close();
  });

  describe("fleet closed host", () => {
    it("result() and events() under way when their host closes, and every call after, reject with FleetClosedError naming the operation", async () => {
      const fleet = new Fleet({ connectionString: url, schema: freshSchema("closed") });
      closers.push(() => fleet.close());
      await fleet.start();
      // Nobody serves the run: result() and events() wait.
      const handle = await fleet.submit("never served");
      const waitingResult = rejection(handle.result());
      const waitingEvents = rejection(
        (async () => {
          for await (const _ of handle.events()) void _;
        })(),
      );
      await handle.info();
      await fleet.close();
      const calls: [string, Promise<unknown>][] = [
        ["verdict", waitingResult],
        ["events", waitingEvents],
        ["verdict", rejection(handle.result())],
        ["events", rejection(handle.events().next())],
        ["info", rejection(handle.info())],
        ["cancel", rejection(handle.cancel())],
        ["pendingApprovals", rejection(handle.pendingApprovals())],
        ["answer", rejection(fleet.answer("some-approval", { outcome: "approve" }))],
        ["approval", rejection(fleet.approval("some-approval"))],
        ["prune", rejection(fleet.prune())],
      ];
      for (const [operation, call] of calls) {
        const error = await call;
        expect(error, operation).toBeInstanceOf(FleetClosedError);
        expect(isError(error, ErrFleetClosed)).toBe(true);
        expect((error as FleetClosedError).operation).toBe(operation);
      }
    });
  });
}
