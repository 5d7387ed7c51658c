// One worker process of many-workers.test.ts: an Agent on the real claude or codex binary with its
// own CLI home and working directory, sharing one PostgreSQL thread store with the other workers.
// Runs the turns the parent sends over IPC and answers each with its outcome; reports the pid of
// every CLI it spawns, so the parent can end a CLI whose worker it killed.
import { PostgresThreadStore } from "@adaptor/threadstore-postgres";
import { claude } from "@adaptor/claude";
import { codex } from "@adaptor/codex";
import { Agent, ErrThreadBusy, isError, type AgentEvent } from "adaptor";

/** What the parent passes in `ADAPTOR_WORKER`. */
export interface WorkerConfig {
  readonly driver: "claude" | "codex";
  readonly pgUrl: string;
  readonly schema: string;
  readonly owner: string;
  readonly cwd: string;
  readonly env: Record<string, string>;
  readonly leaseTtlMs: number;
}

/** Parent → worker. */
export interface TurnOrder {
  readonly id: number;
  readonly key: string;
  readonly prompt: string;
}

/** Worker → parent. */
export type WorkerMessage =
  | { readonly type: "ready" }
  | { readonly type: "spawned"; readonly id: number; readonly pid: number }
  | { readonly type: "done"; readonly id: number; readonly ok: true; readonly text: string; readonly restored: boolean }
  | { readonly type: "done"; readonly id: number; readonly ok: false; readonly busy: boolean; readonly error: string };

const config = JSON.parse(process.env.ADAPTOR_WORKER ?? "{}") as WorkerConfig;
const send = (message: WorkerMessage): void => void process.send?.(message);
const store = new PostgresThreadStore({ connectionString: config.pgUrl, schema: config.schema });
const driver =
  config.driver === "claude"
    ? claude({ env: config.env, inheritEnv: false, model: "claude-sonnet-4-5" })
    : codex({ env: config.env, inheritEnv: false, killGraceMs: 1000 });
const agent = new Agent(driver, {
  threadStore: store,
  cwd: config.cwd,
  workspace: "git@example.com:acme/app.git",
  owner: config.owner,
  leaseTtlMs: config.leaseTtlMs,
});

process.on("message", (order: TurnOrder) => {
  void (async () => {
    let restored = false;
    try {
      const stream = agent.thread(order.key).stream(order.prompt);
      for await (const event of stream as AsyncIterable<AgentEvent>) {
        if (event.type === "process" && event.kind === "spawn" && event.pid !== undefined)
          send({ type: "spawned", id: order.id, pid: event.pid });
        if (event.type === "notice" && event.message === "session restored") restored = true;
      }
      send({ type: "done", id: order.id, ok: true, text: (await stream.result()).text, restored });
    } catch (error) {
      send({
        type: "done",
        id: order.id,
        ok: false,
        busy: isError(error, ErrThreadBusy),
        error: error instanceof Error ? `${error.message} ${String(error.cause ?? "")}` : String(error),
      });
    }
  })();
});

process.on("disconnect", () => {
  void agent
    .close()
    .then(() => store.close())
    .finally(() => process.exit(0));
});

send({ type: "ready" });
