import { execFile } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);

/** A PostgreSQL cluster of one test's own, which it may restart without disturbing other tests. */
export interface OwnPostgres {
  readonly url: string;
  /** `pg_ctl restart -m immediate`: every connection is cut, the server is back when this resolves. */
  restart(): Promise<void>;
  /** Stops the server and removes its files. */
  stop(): Promise<void>;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => resolve(typeof address === "object" && address ? address.port : 0));
    });
  });
}

/**
 * Starts a throwaway cluster with the binaries scripts/with-postgres.sh uses (`ADAPTOR_TEST_PG_BIN`,
 * default /usr/lib/postgresql/15/bin), as the `postgres` user when root; undefined when they are
 * missing.
 */
export async function ownPostgres(): Promise<OwnPostgres | undefined> {
  const bin = process.env.ADAPTOR_TEST_PG_BIN ?? "/usr/lib/postgresql/15/bin";
  if (!existsSync(join(bin, "initdb"))) return undefined;
  const root = process.getuid?.() === 0;
  const as = (command: string, args: string[]): [string, string[]] =>
    root ? ["runuser", ["-u", "postgres", "--", command, ...args]] : [command, args];
  const env = { ...process.env, PATH: `${process.env.PATH}:/usr/sbin:/sbin` };
  const dir = mkdtempSync("/tmp/adaptor-fleet-pg-");
  chmodSync(dir, 0o777);
  const data = join(dir, "data");
  const port = await freePort();
  const exec = async (command: string, args: string[]) => {
    const [c, a] = as(join(bin, command), args);
    await run(c, a, { env });
  };
  await exec("initdb", ["-D", data, "-U", "postgres", "-A", "trust", "-E", "UTF8", "--locale=C", "--no-sync"]);
  // synchronous_commit stays on: with it off, a commit is acknowledged before its WAL is written, and
  // `restart -m immediate` loses it (a reader saw an event the database then forgets). fsync may be
  // off: the WAL the server wrote survives in the OS cache, since only the server restarts.
  const opts = `-c listen_addresses=127.0.0.1 -c port=${port} -c unix_socket_directories=${dir} -c fsync=off -c max_connections=100`;
  await exec("pg_ctl", ["-D", data, "-l", join(dir, "server.log"), "-o", opts, "-w", "-t", "60", "start"]);
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    // -l again: without it the server would keep pg_ctl's output pipes open.
    restart: () => exec("pg_ctl", ["-D", data, "-l", join(dir, "server.log"), "-m", "immediate", "-w", "-t", "60", "restart"]),
    stop: async () => {
      await exec("pg_ctl", ["-D", data, "-m", "immediate", "-w", "-t", "60", "stop"]).catch(() => {});
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
