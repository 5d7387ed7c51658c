import net from "node:net";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * A proxy to the test server, for a host that loses the database while the server stays up for
 * the others: `cut()` refuses new connections and ends every open one, `restore()` listens again on
 * the same address. It listens on a TCP port of 127.0.0.1 (`listen`: a cut host's connects fail
 * `ECONNREFUSED`) or on a Unix socket in a directory of its own (`listenSocket`: the socket file is
 * gone while cut, so connects fail `ENOENT`, as with a local server that is stopped).
 */
export class TcpProxy {
  readonly #target: { readonly host: string; readonly port: number };
  readonly #sockets = new Set<net.Socket>();
  #server: net.Server | undefined;
  #port = 0;
  /** The Unix socket's directory, once `listenSocket` made it. */
  #dir: string | undefined;

  constructor(url: string) {
    const parsed = new URL(url);
    this.#target = { host: parsed.hostname, port: Number(parsed.port || 5432) };
  }

  /** Listens on a free port (the first time) or the same one; returns a connection string through the proxy. */
  async listen(url: string): Promise<string> {
    await this.#serve((server, listening) => server.listen(this.#port, "127.0.0.1", listening));
    this.#port = (this.#server!.address() as net.AddressInfo).port;
    const through = new URL(url);
    through.hostname = "127.0.0.1";
    through.port = String(this.#port);
    return through.toString();
  }

  /**
   * Listens on a Unix socket (in a directory of its own, made the first time); returns a
   * connection string through it (the `host` parameter naming the directory, as for a local server).
   */
  async listenSocket(url: string): Promise<string> {
    this.#dir ??= mkdtempSync(join(tmpdir(), "adaptor-fleet-proxy-"));
    const path = join(this.#dir, `.s.PGSQL.${this.#target.port}`);
    await this.#serve((server, listening) => server.listen(path, listening));
    const through = new URL(url);
    through.searchParams.set("host", this.#dir);
    return through.toString();
  }

  async #serve(listen: (server: net.Server, listening: () => void) => void): Promise<void> {
    const server = net.createServer((client) => {
      const upstream = net.connect(this.#target.port, this.#target.host);
      for (const socket of [client, upstream]) {
        this.#sockets.add(socket);
        socket.on("close", () => this.#sockets.delete(socket));
        socket.on("error", () => {
          client.destroy();
          upstream.destroy();
        });
      }
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((resolve) => listen(server, resolve));
    this.#server = server;
  }

  /** Refuses new connections (a Unix socket's file is removed) and ends the open ones. */
  async cut(): Promise<void> {
    const server = this.#server;
    this.#server = undefined;
    const closed = server ? new Promise<void>((resolve) => server.close(() => resolve())) : Promise.resolve();
    for (const socket of this.#sockets) socket.destroy();
    await closed;
  }

  /** Accepts connections again on the same address (the one `listen` or `listenSocket` gave). */
  async restore(url: string): Promise<void> {
    if (this.#dir !== undefined) await this.listenSocket(url);
    else await this.listen(url);
  }

  /** Ends everything. */
  async close(): Promise<void> {
    await this.cut();
    if (this.#dir !== undefined) rmSync(this.#dir, { recursive: true, force: true });
  }
}
