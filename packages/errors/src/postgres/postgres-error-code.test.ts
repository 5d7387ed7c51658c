import net from "node:net";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ErrCode } from "../err-code.js";
import { postgresConnectionLost, postgresErrorCode } from "./postgres-error-code.js";

/** The socket error of a connect to `path` (what the `pg` client rejects with, as it is). */
function connectError(options: net.NetConnectOpts): Promise<Error> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(options);
    socket.once("connect", () => {
      socket.destroy();
      reject(new Error("connected"));
    });
    socket.once("error", resolve);
  });
}

/** A TCP port of 127.0.0.1 that nothing listens on (it did a moment ago). */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe("postgresConnectionLost / postgresErrorCode", () => {
  it("a connect refused is a connection lost (SERVICE_UNAVAILABLE): the Unix socket of a stopped local server (ENOENT) and a closed TCP port", async () => {
    const dir = mkdtempSync(join(tmpdir(), "adaptor-errors-pg-"));
    try {
      const refused = [
        await connectError({ path: join(dir, ".s.PGSQL.5432") }),
        await connectError({ host: "127.0.0.1", port: await closedPort() }),
      ];
      expect(refused.map((error) => (error as { code?: string }).code)).toEqual(["ENOENT", "ECONNREFUSED"]);
      for (const error of refused) {
        expect(postgresConnectionLost(error)).toBe(true);
        expect(postgresErrorCode(error)).toBe(ErrCode.ServiceUnavailable);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("a lost connection and a server shutting down or starting up are too; a missing file outside a connect, a missing table and a serialization failure are not", () => {
    const coded = (code: string, extra: object = {}) => Object.assign(new Error(code), { code, ...extra });
    for (const lost of [
      coded("ECONNRESET"),
      coded("57P01"),
      coded("57P03"),
      coded("08006"),
      new Error("Connection terminated unexpectedly"),
    ])
      expect([lost.message, postgresConnectionLost(lost)]).toEqual([lost.message, true]);
    for (const other of [coded("ENOENT", { syscall: "open" }), coded("42P01"), coded("40001"), coded("42501"), "ECONNREFUSED", null])
      expect([String(other), postgresConnectionLost(other)]).toEqual([String(other), false]);
    expect(postgresErrorCode(coded("40001"))).toBe(ErrCode.ServiceUnavailable);
    expect(postgresErrorCode(coded("ENOENT", { syscall: "open" }))).toBe(ErrCode.Internal);
  });

  it("a server that answers but refuses the login or the database (28P01, 3D000), or a socket the process may not open (EACCES, EPERM on the connect), is no outage: waiting cannot mend it", () => {
    const coded = (code: string, extra: object = {}) => Object.assign(new Error(code), { code, ...extra });
    for (const refused of [
      coded("28P01"),
      coded("28000"),
      coded("3D000"),
      coded("EACCES", { syscall: "connect" }),
      coded("EPERM", { syscall: "connect" }),
    ]) {
      expect([refused.message, postgresConnectionLost(refused)]).toEqual([refused.message, false]);
      expect([refused.message, postgresErrorCode(refused)]).not.toEqual([refused.message, ErrCode.ServiceUnavailable]);
    }
  });
});
