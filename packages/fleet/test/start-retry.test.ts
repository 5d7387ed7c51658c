// start() while PostgreSQL restarts: whichever step fails (the tables' version, pg-boss's start, its
// queues, the LISTEN connection), the host gets DriverError SERVICE_UNAVAILABLE with the pg error
// kept, and a failed start is not kept: a later start() tries again.
import net from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { DriverError, ErrCode } from "@adaptor/errors";
import { Fleet } from "@adaptor/fleet";
import { PG_URL, freshSchema, skipWithoutServer } from "./support/pg.js";

/** A PostgreSQL ErrorResponse, as a server that is shutting down answers a new connection's startup message. */
function shuttingDown(): Buffer {
  const fields = Buffer.from("SFATAL\0VFATAL\0C57P03\0Mthe database system is shutting down\0\0");
  const head = Buffer.alloc(5);
  head.write("E", 0);
  head.writeInt32BE(fields.length + 4, 1);
  return Buffer.concat([head, fields]);
}

/**
 * A TCP proxy to the test server that passes the first `admitted` connections and answers the
 * others as a server shutting down (SQLSTATE 57P03), until `admitAll()`.
 */
class ShutdownProxy {
  readonly #server: net.Server;
  #admitted: number;
  readonly #sockets = new Set<net.Socket>();

  constructor(target: URL, admitted: number) {
    this.#admitted = admitted;
    this.#server = net.createServer((client) => {
      this.#sockets.add(client);
      client.on("close", () => this.#sockets.delete(client));
      client.on("error", () => client.destroy());
      if (this.#admitted <= 0) {
        client.once("data", () => client.end(shuttingDown()));
        return;
      }
      this.#admitted -= 1;
      const upstream = net.connect(Number(target.port || 5432), target.hostname);
      this.#sockets.add(upstream);
      upstream.on("close", () => this.#sockets.delete(upstream));
      upstream.on("error", () => client.destroy());
      client.on("close", () => upstream.destroy());
      client.pipe(upstream).pipe(client);
    });
  }

  async listen(url: string): Promise<string> {
    await new Promise<void>((resolve) => this.#server.listen(0, "127.0.0.1", resolve));
    const through = new URL(url);
    through.hostname = "127.0.0.1";
    through.port = String((this.#server.address() as net.AddressInfo).port);
    return through.toString();
  }

  admitAll(): void {
    this.#admitted = Number.POSITIVE_INFINITY;
  }

  async close(): Promise<void> {
    for (const socket of this.#sockets) socket.destroy();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }
}

if (!PG_URL) {
  skipWithoutServer("fleet start during a restart");
} else {
  const url = PG_URL;
  const closers: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const close of closers.splice(0).reverse()) await close();
  });

  describe("start() while the database shuts down", () => {
    it("a start whose pg-boss steps are refused (57P03) rejects with DriverError SERVICE_UNAVAILABLE, the pg error kept, and a later start() succeeds", async () => {
      const schema = freshSchema("fleet_restart");
      const owner = new Fleet({ connectionString: url, schema });
      await owner.migrate();
      await owner.close();
      // The host's first connection (the tables' version) gets through; pg-boss's then find the server shutting down.
      const proxy = new ShutdownProxy(new URL(url), 1);
      closers.push(() => proxy.close());
      const host = new Fleet({ connectionString: await proxy.listen(url), schema });
      closers.push(() => host.close());

      const error = await host.start().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(DriverError);
      expect(error).toMatchObject({ code: ErrCode.ServiceUnavailable, device: "fleet", op: "fleet start" });
      expect((error as DriverError).cause).toMatchObject({ code: "57P03" });

      proxy.admitAll();
      await host.start();
      const handle = await host.submit("after the restart");
      expect((await handle.info()).settled).toBe(false);
    });
  });
}
