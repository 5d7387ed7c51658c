import { randomUUID } from "node:crypto";

/**
 * A tool call id no other scripted server makes: `prefix`, `_` and the 32 hex digits of a random
 * UUID, e.g. `toolu_0f8a…`. A conversation that moves from one server to another (a continued
 * thread, another host) never meets one of its earlier ids again, which a CLI would take for the
 * same call.
 */
export function uniqueCallId(prefix: string): string {
  return `${prefix}_${randomUUID().replaceAll("-", "")}`;
}
