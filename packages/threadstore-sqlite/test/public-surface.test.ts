// Pins the runtime export list of @adaptor/threadstore-sqlite.
import { expect, it } from "vitest";

it("@adaptor/threadstore-sqlite exports exactly SqliteThreadStore", async () => {
  expect(Object.keys(await import("@adaptor/threadstore-sqlite")).sort()).toEqual(["SqliteThreadStore"]);
});
