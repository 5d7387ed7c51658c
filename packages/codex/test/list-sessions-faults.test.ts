import { afterEach, describe, expect, it } from "vitest";
import { fakeCliEnv, fakeCliPath, type FakeCliStep } from "@adaptor/testkit/fake-cli";
import { DriverError, ErrCode, InvalidOptionError, findError } from "@adaptor/errors";
import { JsonRpcError } from "@adaptor/driver/kit";
import { codex } from "../src/index.js";
import { fakeLine } from "./support.js";

// Listing codex's threads against a fake app-server: how its refusals and the caller's abort come out.

/** The fake app-server answering `initialize`, then answering `thread/list` (request 2) with `error`. */
function refusing(error: { code: number; message: string }): FakeCliStep[] {
  return [
    { awaitStdinLine: true }, // initialize
    fakeLine({ id: 1, result: { userAgent: "adaptor/0.171.0 (fake)", codexHome: "/x", platformFamily: "unix", platformOs: "linux" } }),
    { awaitStdinLine: true }, // initialized
    { awaitStdinLine: true }, // thread/list
    fakeLine({ id: 2, error }),
    { awaitStdinEnd: true },
  ];
}

const drivers: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(drivers.splice(0).map((driver) => driver.close()));
});

function open<D extends { close(): Promise<void> }>(driver: D): D {
  drivers.push(driver);
  return driver;
}

async function failure(run: Promise<unknown>): Promise<unknown> {
  return run.then(
    () => undefined,
    (e: unknown) => e,
  );
}

describe("codex listSessions: refusals and abort (fake app-server)", { timeout: 60_000 }, () => {
  it("codex refusing the cursor (invalid request, `invalid cursor`): InvalidOptionError field cursor, codex's error its cause", async () => {
    const driver = open(
      codex({
        command: fakeCliPath,
        env: fakeCliEnv(refusing({ code: -32600, message: "invalid cursor: not-a-cursor" })),
        killGraceMs: 300,
      }),
    );
    const err = await failure(driver.listSessions({ limit: 10, cursor: "not-a-cursor" }));
    expect(err).toBeInstanceOf(InvalidOptionError);
    expect(err).toMatchObject({ subject: "listSessions query", field: "cursor" });
    expect((err as Error).cause).toBeInstanceOf(JsonRpcError);
    expect((err as Error).cause).toMatchObject({ method: "thread/list", code: -32600 });
  });

  it("another refusal whose message names a cursor is codex's failure (DriverError DRIVER), not the caller's cursor", async () => {
    const driver = open(
      codex({
        command: fakeCliPath,
        env: fakeCliEnv(refusing({ code: -32603, message: "failed to read the thread index cursor table" })),
        killGraceMs: 300,
      }),
    );
    const err = await failure(driver.listSessions({ limit: 10, cursor: "c1" }));
    expect(findError(err, InvalidOptionError)).toBeUndefined();
    expect(err).toBeInstanceOf(DriverError);
    expect(err).toMatchObject({ code: ErrCode.Driver, op: "thread/list" });
    expect(findError(err, JsonRpcError)).toMatchObject({ code: -32603 });
  });

  it("an abort while the app-server is starting ends it: the listing rejects with the reason, not after the reply timeout", async () => {
    const driver = open(
      codex({
        command: fakeCliPath,
        env: fakeCliEnv([{ hang: true }]),
        killGraceMs: 300,
        replyTimeoutMs: 600_000,
      }),
    );
    const controller = new AbortController();
    const reason = new Error("the host gave up");
    const listing = failure(driver.listSessions({ limit: 10 }, controller.signal));
    controller.abort(reason); // the process is being spawned: withShortLivedAppServer awaits its start
    expect(await listing).toBe(reason);
  });
});
