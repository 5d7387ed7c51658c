import { describe, expect, it } from "vitest";
import { RememberedIds } from "./remembered-ids.js";

describe("RememberedIds", () => {
  it("a session whose creator is gone is still held: a job forked in it after it was seen is the turn's", () => {
    const sessions = new RememberedIds();
    sessions.note(4100, 500);
    sessions.note(4100, 520); // a later member: the first one seen still dates the session
    // Nothing has pid 4100 any more (the shell that made the session exited); its job forked at 900.
    expect(sessions.holds(4100, () => undefined)).toBe(true);
    expect(sessions.holds(4200, () => undefined)).toBe(false);
  });

  it("the creator seen first, or a process older than the first member, still names the session", () => {
    const sessions = new RememberedIds();
    sessions.note(4100, 500);
    expect(sessions.holds(4100, () => 500)).toBe(true);
    sessions.note(4100, 450); // the creator itself, seen later
    expect(sessions.holds(4100, () => 450)).toBe(true);
  });

  it("an id handed out again (another CLI made its own session with it) is forgotten, also once that process is gone", () => {
    const sessions = new RememberedIds();
    sessions.note(4100, 500);
    // The pid came round again: a process started at 9000 has it and made a session with it.
    expect(sessions.holds(4100, (pid) => (pid === 4100 ? 9000 : undefined))).toBe(false);
    expect(sessions.holds(4100, () => undefined)).toBe(false);
    expect(sessions.size).toBe(0);
    expect(sessions.has(4100)).toBe(false);
  });

  it("has tells whether an id is remembered, without checking that it still names what was seen", () => {
    const sessions = new RememberedIds();
    sessions.note(4100, 500);
    expect(sessions.has(4100)).toBe(true);
    expect(sessions.has(4200)).toBe(false);
  });
});
