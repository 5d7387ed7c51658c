// One writer, always: six processes race to take over a lock left by a dead writer, round after
// round. In every round at most one of them may hold the key (each holds it until all six have
// answered), and the log they append to never gets a sequence twice.
import { fork, spawnSync, type ChildProcess } from "node:child_process";
import { mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { JsonlEventBackend, type RecordedEvent } from "@adaptor/sessionrecorder";
import { bundleScript } from "./support/bundle-script.js";

const HERE = fileURLToPath(new URL(".", import.meta.url));
const PROCESSES = 6;
const ROUNDS = 50;
const KEY = "contended";

type Reply =
  { type: "ready" } | { type: "took"; sequence: number } | { type: "refused"; name: string; message: string } | { type: "released" };

let dir: string;
let contenderScript: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "adaptor-lock-race-"));
  contenderScript = join(dir, "lock-contender.mjs");
  await bundleScript(contenderScript, { entry: join(HERE, "support/lock-contender.ts") });
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A contender process and its replies, in order. */
class Contender {
  readonly child: ChildProcess;
  readonly #replies: Reply[] = [];
  #wake: (() => void) | undefined;

  constructor(root: string) {
    this.child = fork(contenderScript, [root], { stdio: ["ignore", "inherit", "inherit", "ipc"] });
    this.child.on("message", (reply: Reply) => {
      this.#replies.push(reply);
      this.#wake?.();
    });
    this.child.on("exit", () => this.#wake?.());
  }

  async next(): Promise<Reply> {
    while (this.#replies.length === 0) {
      if (this.child.exitCode !== null || this.child.signalCode !== null) throw new Error(`contender ${this.child.pid} exited`);
      await new Promise<void>((resolve) => (this.#wake = resolve));
    }
    return this.#replies.shift()!;
  }

  send(message: Record<string, unknown>): void {
    this.child.send(message);
  }
}

describe("stale-lock takeover race", () => {
  it(
    `${PROCESSES} processes taking over a dead writer's lock for ${ROUNDS} rounds: never two holders, no duplicate sequence`,
    { timeout: 60_000 },
    async () => {
      const root = join(dir, "root");
      mkdirSync(root);
      const dead = spawnSync(process.execPath, ["-e", "0"]).pid;
      const lockPath = join(root, `${KEY}.jsonl.lock`);
      const contenders = Array.from({ length: PROCESSES }, () => new Contender(root));
      try {
        for (const contender of contenders) expect(await contender.next()).toEqual({ type: "ready" });
        const holdersPerRound: number[] = [];
        const refusals = new Set<string>();
        for (let round = 0; round < ROUNDS; round++) {
          // The dead writer's lock, as a crash leaves it.
          writeFileSync(
            lockPath,
            JSON.stringify({ pid: dead, hostname: hostname(), acquiredAt: new Date(0).toISOString(), token: `dead-${round}` }),
          );
          for (const contender of contenders) contender.send({ type: "take", key: KEY, round });
          const replies = await Promise.all(contenders.map((contender) => contender.next()));
          const holders = contenders.filter((_, index) => replies[index]!.type === "took");
          for (const reply of replies) if (reply.type === "refused") refusals.add(reply.name);
          holdersPerRound.push(holders.length);
          for (const holder of holders) holder.send({ type: "release" });
          for (const holder of holders) expect(await holder.next()).toEqual({ type: "released" });
        }
        expect(holdersPerRound.filter((count) => count !== 1)).toEqual([]);
        expect([...refusals]).toEqual(["EventLogLockedError"]);
      } finally {
        for (const contender of contenders) if (contender.child.connected) contender.send({ type: "exit" });
        await Promise.all(
          contenders.map((contender) =>
            contender.child.exitCode !== null ? undefined : new Promise((resolve) => contender.child.once("exit", resolve)),
          ),
        );
      }
      const backend = new JsonlEventBackend({ root });
      const records: RecordedEvent[] = [];
      for await (const record of backend.replay(KEY)) records.push(record);
      expect(records.map((record) => record.sequence)).toEqual(Array.from({ length: ROUNDS }, (_, index) => index + 1));
      expect(records.map((record) => (record.event as { round: number }).round)).toEqual(
        Array.from({ length: ROUNDS }, (_, index) => index),
      );
      expect(await backend.repair(KEY)).toEqual({ key: KEY, truncatedBytes: 0, lastSequence: ROUNDS });
      await backend.close();
      // No lock, claim or temporary file is left behind.
      expect(readdirSync(root)).toEqual([`${KEY}.jsonl`]);
    },
  );
});
