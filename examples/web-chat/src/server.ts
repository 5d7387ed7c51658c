import { readFile } from "node:fs/promises";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { createRequire } from "node:module";
import { Bridge, hostAllowed } from "@adaptor/bridge";
import { claude } from "@adaptor/claude";
import { claudeTestEnv, startAnthropicServer } from "@adaptor/testkit";
import { Fleet } from "@adaptor/fleet";
import { Agent, type Prompt, type RunOptions, type Stream } from "adaptor";
import { webChatScript } from "./scripted-model.js";

const PUBLIC = resolve(dirname(fileURLToPath(import.meta.url)), "../public");
/** eventsource-parser's browser build (plain ES modules), served to the page under /vendor/eventsource-parser/. */
const PARSER_DIST = join(dirname(createRequire(import.meta.url).resolve("eventsource-parser/package.json")), "dist");

/** Options of {@link startWebChat}. */
export interface WebChatOptions {
  /** Use your own Claude setup instead of the scripted model on 127.0.0.1. Default false. */
  readonly live?: boolean;
  /** Port on 127.0.0.1; 0 picks a free one. Default 0. */
  readonly port?: number;
  /**
   * Host names the chat answers besides 127.0.0.1, localhost and [::1] on its port (the bridge's
   * `allowedHosts`: `"chat.example.com"`, `"chat.example.com:8443"`). Any other `Host` is refused
   * with 403, page and API alike, so a site that rebinds its own name to 127.0.0.1 cannot drive
   * the chat (and, with `live`, your account). Default none.
   */
  readonly allowedHosts?: readonly string[];
  /**
   * Run the chat on a fleet (`@adaptor/fleet` on PostgreSQL) instead of an Agent in this process:
   * the bridge becomes a stateless front-end that submits each task to the fleet, and worker
   * processes ({@link startWebChatWorker}) run them. With `worker: true` this process is a worker
   * too. Any number of front-ends and workers may share the database (and `schema`).
   */
  readonly fleet?: WebChatFleetOptions;
}

/** Where the chat's fleet lives. */
export interface WebChatFleetOptions {
  /** PostgreSQL connection string. */
  readonly connectionString: string;
  /** The fleet's schema. Default `adaptor_web_chat`. */
  readonly schema?: string;
  /** Serve tasks in this process as well (a front-end and a worker in one). Default false. */
  readonly worker?: boolean;
}

/** The chat's port is taken by another program. */
export class PortInUseError extends Error {
  override readonly name = "PortInUseError";
  constructor(
    /** The port asked for. */
    readonly port: number,
    options: ErrorOptions,
  ) {
    super(`port ${port} is in use, try --port <another port> (or --port 0 for a free one)`, options);
  }
}

/** A running web chat. */
export interface WebChat {
  /** The page's URL, e.g. `http://127.0.0.1:5173/`. */
  readonly url: string;
  /** The scratch folder: each task works in its own fresh subfolder of it (see {@link taskDirs}). */
  readonly projectDir: string;
  /** The working directory of each task so far, in the order they started. */
  readonly taskDirs: readonly string[];
  /** The bridge serving `/api/` (its `size` counts the runs it holds). */
  readonly bridge: Bridge;
  close(): Promise<void>;
}

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
};

async function serveFile(res: ServerResponse, root: string, name: string): Promise<void> {
  const file = resolve(root, name);
  if (!file.startsWith(root + "/")) {
    res.writeHead(404).end();
    return;
  }
  try {
    const body = await readFile(file);
    res.writeHead(200, {
      "content-type": TYPES[file.slice(file.lastIndexOf("."))] ?? "application/octet-stream",
      "cache-control": "no-store",
    });
    res.end(body);
  } catch {
    res.writeHead(404).end();
  }
}

/**
 * Starts the web chat: a Claude Code agent behind `@adaptor/bridge` at `/api/`, and the page at
 * `/`. Each task works in its own fresh folder under a scratch folder (with a `build/` folder to
 * tempt the agent), so every task starts from the same files.
 */
export async function startWebChat(options: WebChatOptions = {}): Promise<WebChat> {
  const projectDir = await mkdtemp(join(tmpdir(), "adaptor-web-chat-"));
  const cleanups: (() => Promise<void>)[] = [() => rm(projectDir, { recursive: true, force: true })];
  const taskDirs: string[] = [];
  const taskDir = async (): Promise<string> => {
    const dir = await mkdtemp(join(projectDir, "task-"));
    await mkdir(join(dir, "build"));
    await writeFile(join(dir, "build", "old-bundle.js"), "// stale\n");
    taskDirs.push(dir);
    return dir;
  };
  try {
    const allowedHosts = options.allowedHosts ?? [];
    let bridge: Bridge;
    if (options.fleet) {
      const fleet = new Fleet({ connectionString: options.fleet.connectionString, schema: options.fleet.schema ?? DEFAULT_SCHEMA });
      cleanups.push(() => fleet.close());
      await fleet.start();
      if (options.fleet.worker) {
        const worker = await startWebChatWorker({ ...options.fleet, ...(options.live !== undefined ? { live: options.live } : {}) });
        cleanups.push(() => worker.close());
      }
      // The task folder is the worker's to make (see startWebChatWorker): no cwd from here.
      bridge = new Bridge({ fleet, basePath: "/api/", allowedHosts });
    } else {
      const agent = await chatAgent(projectDir, options.live ?? false, cleanups);
      bridge = new Bridge({ runner: agent, basePath: "/api/", allowedHosts, runOptions: async () => ({ cwd: await taskDir() }) });
    }
    cleanups.push(() => bridge.close());

    const server = createServer((req: IncomingMessage, res: ServerResponse) => {
      const path = new URL(req.url ?? "/", "http://web-chat.invalid").pathname;
      if (path.startsWith("/api/")) return bridge.handler(req, res);
      if (!hostAllowed(req, allowedHosts)) {
        res.writeHead(403, { "content-type": "text/plain; charset=utf-8", "cache-control": "no-store" });
        return void res.end(
          `This web chat answers only http://127.0.0.1:${String(req.socket.localPort)}/ (host ${JSON.stringify(req.headers.host ?? "")} refused).\n`,
        );
      }
      if (req.method !== "GET") return void res.writeHead(405).end();
      if (path === "/") return void serveFile(res, PUBLIC, "index.html");
      if (path.startsWith("/vendor/eventsource-parser/"))
        return void serveFile(res, PARSER_DIST, path.slice("/vendor/eventsource-parser/".length));
      return void serveFile(res, PUBLIC, path.slice(1));
    });
    const port = options.port ?? 0;
    await new Promise<void>((done, fail) => {
      server.once("error", (error: NodeJS.ErrnoException) =>
        fail(error.code === "EADDRINUSE" ? new PortInUseError(port, { cause: error }) : error),
      );
      server.listen(port, "127.0.0.1", done);
    });
    cleanups.push(async () => {
      server.closeAllConnections();
      await new Promise<void>((done) => server.close(() => done()));
    });
    return {
      url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
      projectDir,
      taskDirs,
      bridge,
      async close() {
        for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
      },
    };
  } catch (error) {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
    throw error;
  }
}

const DEFAULT_SCHEMA = "adaptor_web_chat";

/** The chat's Agent: Claude Code on the scripted model (or, `live`, your own setup), cleaned up with `cleanups`. */
async function chatAgent(
  projectDir: string,
  live: boolean,
  cleanups: (() => Promise<void>)[],
  AgentClass: typeof Agent = Agent,
): Promise<Agent> {
  let driver = claude({ cwd: projectDir });
  if (!live) {
    const model = await startAnthropicServer({ rules: webChatScript(projectDir) });
    cleanups.push(() => model.close());
    const env = await claudeTestEnv({ server: model });
    cleanups.push(() => env.cleanup());
    driver = claude({ cwd: projectDir, env: env.env, inheritEnv: false, model: "claude-sonnet-4-5" });
  }
  // Approvals wait for the person at the page: five minutes each, then the run stops.
  const agent = new AgentClass(driver, { timeoutMs: live ? 900_000 : 120_000, policy: { approvals: { timeoutMs: 300_000 } } });
  cleanups.push(() => agent.close());
  return agent;
}

/** Options of {@link startWebChatWorker}. */
export interface WebChatWorkerOptions extends Omit<WebChatFleetOptions, "worker"> {
  /** Use your own Claude setup instead of the scripted model on 127.0.0.1. Default false. */
  readonly live?: boolean;
  /** Tasks this worker runs at once. Default 2. */
  readonly concurrency?: number;
}

/** A running web chat worker. */
export interface WebChatWorker {
  /** The worker's scratch folder: each task it runs works in a fresh subfolder of it. */
  readonly projectDir: string;
  /** Lets the tasks in flight finish (up to 30 s), then stops. */
  close(): Promise<void>;
}

/**
 * Starts a web chat worker: runs the tasks that front-ends (`startWebChat({ fleet })`) submit to
 * the fleet, each in a fresh folder under this worker's own scratch folder.
 */
export async function startWebChatWorker(options: WebChatWorkerOptions): Promise<WebChatWorker> {
  const projectDir = await mkdtemp(join(tmpdir(), "adaptor-web-chat-worker-"));
  const cleanups: (() => Promise<void>)[] = [() => rm(projectDir, { recursive: true, force: true })];
  try {
    /** The chat's Agent, giving every task a fresh folder of this worker's (the front-end cannot name one here). */
    class TaskFolderAgent extends Agent {
      override stream(prompt: Prompt, runOptions: RunOptions = {}): Stream {
        const dir = mkdtempSync(join(projectDir, "task-"));
        mkdirSync(join(dir, "build"));
        writeFileSync(join(dir, "build", "old-bundle.js"), "// stale\n");
        return super.stream(prompt, { ...runOptions, cwd: dir });
      }
    }
    const agent = await chatAgent(projectDir, options.live ?? false, cleanups, TaskFolderAgent);
    const fleet = new Fleet({ connectionString: options.connectionString, schema: options.schema ?? DEFAULT_SCHEMA });
    cleanups.push(async () => {
      await fleet.drain({ timeoutMs: 30_000 });
      await fleet.close();
    });
    await fleet.worker(agent, { concurrency: options.concurrency ?? 2 });
    return {
      projectDir,
      async close() {
        for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
      },
    };
  } catch (error) {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
    throw error;
  }
}
