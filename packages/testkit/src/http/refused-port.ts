import { connect } from "node:net";

/**
 * Ports below Linux's ephemeral range (`net.ipv4.ip_local_port_range`, 32768–60999 by default) that
 * no test server binds: `listen(0)` never hands them out, so unlike a port taken and released they
 * cannot be reused by a server another test starts in the meantime.
 */
const CANDIDATES = [9, 1, 7, 13, 19, 37, 79, 113] as const;

/**
 * A 127.0.0.1 port where a connection is refused (ECONNREFUSED), for tests of an unreachable model
 * server or database. It is chosen below the ephemeral range, so a test server started
 * concurrently (`listen(0)`) never takes it over, as it can a port taken and released.
 *
 * @returns the first of a fixed list of low ports whose connection was refused just now.
 * @throws Error when every candidate port accepts connections on this machine.
 */
export async function refusedLocalPort(): Promise<number> {
  for (const port of CANDIDATES) if (await refused(port)) return port;
  throw new Error(`refusedLocalPort: every candidate port (${CANDIDATES.join(", ")}) accepts connections on 127.0.0.1`);
}

function refused(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: "127.0.0.1", port });
    socket.once("connect", () => {
      socket.destroy();
      resolve(false);
    });
    socket.once("error", (error: NodeJS.ErrnoException) => resolve(error.code === "ECONNREFUSED"));
  });
}
