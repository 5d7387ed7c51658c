import net from "node:net";

/**
 * A TCP proxy to the test server, for a host that loses the database while the server stays up for
 * the others: `cut()` refuses new connections and ends every open one, `restore()` listens again on
 * the same port.
 */
export class TcpProxy {
  readonly #target: { readonly host: string; readonly port: number };
  readonly #sockets = new Set<net.Socket>();
  #server: net.Server | undefined;
  #port = 0;

  constructor(url: string) {
    const parsed = new URL(url);
    this.#target = { host: parsed.hostname, port: Number(parsed.port || 5432) };
  }

  /** Listens on a free port (the first time) or the same one; returns a connection string through the proxy. */
  async listen(url: string): Promise<string> {
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
    await new Promise<void>((resolve) => server.listen(this.#port, "127.0.0.1", resolve));
    this.#port = (server.address() as net.AddressInfo).port;
    this.#server = server;
    const through = new URL(url);
    through.hostname = "127.0.0.1";
    through.port = String(this.#port);
    return through.toString();
  }

  /** Refuses new connections and ends the open ones. */
  async cut(): Promise<void> {
    const server = this.#server;
    this.#server = undefined;
    const closed = server ? new Promise<void>((resolve) => server.close(() => resolve())) : Promise.resolve();
    for (const socket of this.#sockets) socket.destroy();
    await closed;
  }

  /** Accepts connections again on the same port. */
  async restore(url: string): Promise<void> {
    await this.listen(url);
  }

  /** Ends everything. */
  async close(): Promise<void> {
    await this.cut();
  }
}
