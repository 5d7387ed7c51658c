import { describe, expect, it } from "vitest";
import { InvalidOptionError } from "@adaptor/errors";
import { decodeSessionCursor, encodeSessionCursor } from "./session-cursor.js";

const pair = (value: unknown): [string, number] | undefined =>
  Array.isArray(value) && value.length === 2 && typeof value[0] === "string" && typeof value[1] === "number"
    ? [value[0], value[1]]
    : undefined;

function refusal(cursor: string): unknown {
  try {
    decodeSessionCursor(cursor, pair, "a test listing");
  } catch (error) {
    return error;
  }
  return undefined;
}

describe("listSessions cursors (driver kit)", () => {
  it("a position comes back as it went in, from a cursor of URL-safe characters only", () => {
    const position = ["2026-12-07T06:00:00Z|thread é/+?", 1.5];
    const cursor = encodeSessionCursor(position);
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeSessionCursor(cursor, pair, "a test listing")).toEqual(position);
  });

  it("a cursor that is not base64url JSON, or whose value the reader refuses, is an InvalidOptionError naming the listing", () => {
    for (const cursor of ["not-a-cursor", "%%%", encodeSessionCursor({ a: 1 }), encodeSessionCursor(["x", "y"])]) {
      const error = refusal(cursor);
      expect(error).toBeInstanceOf(InvalidOptionError);
      expect(error).toMatchObject({
        subject: "listSessions query",
        field: "cursor",
        reason: "is not a cursor a test listing gave",
      });
    }
  });

  it("a read of a session's messages names its own query in the refusal", () => {
    let error: unknown;
    try {
      decodeSessionCursor("not-a-cursor", pair, "a test read", "getSessionMessages query");
    } catch (caught) {
      error = caught;
    }
    expect(error).toMatchObject({ subject: "getSessionMessages query", field: "cursor", reason: "is not a cursor a test read gave" });
  });

  it("the reader gets undefined for a cursor that is not JSON", () => {
    const seen: unknown[] = [];
    expect(decodeSessionCursor(Buffer.from("not json").toString("base64url"), (value) => (seen.push(value), 1), "a test listing")).toBe(1);
    expect(seen).toEqual([undefined]);
  });
});
