// Pins the runtime export list of @adaptor/sessionrecorder-postgres.
import { expect, it } from "vitest";

it("@adaptor/sessionrecorder-postgres exports exactly PostgresEventBackend", async () => {
  expect(Object.keys(await import("@adaptor/sessionrecorder-postgres")).sort()).toEqual(["PostgresEventBackend"]);
});
