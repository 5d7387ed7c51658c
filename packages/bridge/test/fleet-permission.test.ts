import { randomUUID } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import { DriverError, ErrCode } from "adaptor";
import type { BridgeFleet, BridgeFleetRun } from "../src/fleet/bridge-fleet.js";
import { postJson, serve, type Served } from "./support.js";

// A bridge over a fleet whose database role lacks a right (revoked after the fleet started): every
// fleet call rejects with the fleet's DriverError PERMISSION, which the bridge answers 403
// `permission_denied` with a fixed message, not 500 `internal`. The fleet is a stand-in that
// refuses (fault injection); packages/fleet/test/limited-role.test.ts pins the fleet's errors on PostgreSQL.

/** What the fleet rejects with when PostgreSQL refuses its role (SQLSTATE 42501). */
function refused(op: string, code: ErrCode = ErrCode.Permission): DriverError {
  const pgError =
    code === ErrCode.Permission
      ? Object.assign(new Error("permission denied for table adaptor_fleet_runs"), { code: "42501" })
      : Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), { code: "ECONNREFUSED" });
  return new DriverError({ op, device: "fleet", code, cause: pgError });
}

/** A fleet every call of which is refused with `code` (default: for want of a right). */
function refusingFleet(code: ErrCode = ErrCode.Permission): BridgeFleet {
  const run = (id: string): BridgeFleetRun =>
    ({
      id,
      info: () => Promise.reject(refused("fleet info", code)),
      cancel: () => Promise.reject(refused("fleet cancel", code)),
      result: () => Promise.reject(refused("fleet verdict", code)),
      // eslint-disable-next-line require-yield
      events: async function* () {
        throw refused("fleet events", code);
      },
    }) as unknown as BridgeFleetRun;
  return {
    submit: () => Promise.reject(refused("fleet submit", code)),
    handle: run,
    answer: () => Promise.reject(refused("fleet answer", code)),
    approval: () => Promise.reject(refused("fleet approval", code)),
  };
}

const served: Served[] = [];
afterEach(async () => {
  for (const s of served.splice(0)) await s.close();
});

describe("bridge over a fleet whose database role lacks a right", () => {
  it("answers submit, reconnect, cancel and an approval answer with 403 permission_denied and a fixed message", async () => {
    const bridge = await serve({ fleet: refusingFleet() });
    served.push(bridge);
    const expected = {
      error: { code: "permission_denied", message: "the server's fleet may not do this: its database role lacks a right it needs" },
    };
    const id = randomUUID();
    const responses = [
      await postJson(`${bridge.url}/runs`, { prompt: "hello" }),
      await fetch(`${bridge.url}/runs/${id}/events`),
      await postJson(`${bridge.url}/runs/${id}/cancel`, {}),
      await postJson(`${bridge.url}/approvals/${id}`, { decision: "approve" }),
    ];
    for (const response of responses) {
      expect(response.status).toBe(403);
      expect(await response.json()).toEqual(expected);
    }
  });

  it("a reconnect to a run whose stored events the fleet may not read (its info readable) is answered 403 permission_denied, before any stream header", async () => {
    const refusing = refusingFleet();
    const fleet: BridgeFleet = {
      ...refusing,
      handle: (id) =>
        ({
          ...refusing.handle(id),
          info: () => Promise.resolve({ threadKey: undefined, settled: false, lastSequence: 3 }),
        }) as BridgeFleetRun,
    };
    const bridge = await serve({ fleet });
    served.push(bridge);
    const response = await fetch(`${bridge.url}/runs/${randomUUID()}/events`);
    expect(response.status).toBe(403);
    expect(response.headers.get("content-type")).toContain("application/json");
    expect(await response.json()).toEqual({
      error: { code: "permission_denied", message: "the server's fleet may not do this: its database role lacks a right it needs" },
    });
  });

  it("a reconnect to a run with no stored events yet, whose events the fleet may not read, is answered 403 permission_denied, before any stream header", async () => {
    const refusing = refusingFleet();
    const reads: unknown[] = [];
    const fleet: BridgeFleet = {
      ...refusing,
      handle: (id) =>
        ({
          ...refusing.handle(id),
          info: () => Promise.resolve({ threadKey: undefined, settled: false, lastSequence: 0 }),
          // eslint-disable-next-line require-yield
          events: async function* (options: unknown) {
            reads.push(options);
            throw refused("fleet events");
          },
        }) as BridgeFleetRun,
    };
    const bridge = await serve({ fleet });
    served.push(bridge);
    const response = await fetch(`${bridge.url}/runs/${randomUUID()}/events`);
    expect(response.status).toBe(403);
    expect(response.headers.get("content-type")).toContain("application/json");
    expect(await response.json()).toEqual({
      error: { code: "permission_denied", message: "the server's fleet may not do this: its database role lacks a right it needs" },
    });
    // The check reads what is stored without waiting for live events: a run with none ends the read at once.
    expect(reads[0]).toMatchObject({ after: 0, follow: false });
  });

  it("a fleet whose database is unreachable is answered 503 database_unavailable (retry), not 500 internal, on the same four routes", async () => {
    const bridge = await serve({ fleet: refusingFleet(ErrCode.ServiceUnavailable) });
    served.push(bridge);
    const id = randomUUID();
    const responses = [
      await postJson(`${bridge.url}/runs`, { prompt: "hello" }),
      await fetch(`${bridge.url}/runs/${id}/events`),
      await postJson(`${bridge.url}/runs/${id}/cancel`, {}),
      await postJson(`${bridge.url}/approvals/${id}`, { decision: "approve" }),
    ];
    for (const response of responses) {
      expect(response.status).toBe(503);
      expect(await response.json()).toEqual({
        error: { code: "database_unavailable", message: "the server's fleet cannot reach its database: try again" },
      });
    }
  });
});
