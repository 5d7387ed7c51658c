// Pins the runtime export list of @adaptor/threadstore-postgres.
import { expect, it } from "vitest";

it("@adaptor/threadstore-postgres exports exactly PostgresThreadStore", async () => {
  expect(Object.keys(await import("@adaptor/threadstore-postgres")).sort()).toEqual(["PostgresThreadStore"]);
});
