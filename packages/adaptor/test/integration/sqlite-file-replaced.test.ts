import { copyFileSync, mkdtempSync, renameSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { DriverError, ErrCode, findError } from "@adaptor/errors";
import { SqliteThreadStore } from "@adaptor/threadstore-sqlite";
import { Agent, ErrThreadLeaseLost, isError } from "../../src/index.js";
import { scriptedDriver } from "../scripted-driver.js";

const dir = mkdtempSync(join(tmpdir(), "adaptor-sqlite-replaced-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A driver that names its session after the prompt, after running `during` (the turn's middle). */
function driver(during: () => void = () => {}) {
  return scriptedDriver(async (request) => {
    during();
    return { text: `did ${request.prompt}`, checkpoint: { resumeId: `session-${request.prompt}` } };
  });
}

describe("a thread turn whose SQLite store file is replaced during the turn", () => {
  it("ends with ErrThreadLeaseLost and commits nowhere, while a host on the new file runs its turn", async () => {
    const path = join(dir, "threads.db");
    const seedStore = new SqliteThreadStore({ path });
    const seeding = new Agent(driver(), { threadStore: seedStore });
    await seeding.thread("k").run("seed");
    await seeding.close();
    await seedStore.close(); // the last connection: SQLite folds the WAL into the file
    // The file as it was between turns, put in place while turn A runs.
    copyFileSync(path, `${path}.backup`);

    const storeA = new SqliteThreadStore({ path });
    const agentA = new Agent(
      driver(() => {
        renameSync(`${path}.backup`, path);
        rmSync(`${path}-wal`, { force: true });
        rmSync(`${path}-shm`, { force: true });
      }),
      { threadStore: storeA },
    );
    const err = await agentA
      .thread("k")
      .run("turn A")
      .catch((e: unknown) => e);
    expect(isError(err, ErrThreadLeaseLost)).toBe(true);
    expect(findError(err, DriverError)?.code).toBe(ErrCode.DeviceDisconnected);
    await agentA.close();
    await storeA.close();

    const storeB = new SqliteThreadStore({ path });
    const agentB = new Agent(driver(), { threadStore: storeB });
    expect((await agentB.thread("k").run("turn B")).text).toBe("did turn B");
    const record = await storeB.resolve({ key: "k" });
    expect(record?.checkpoint.resumeId).toBe("session-turn B");
    await agentB.close();
    await storeB.close();
  });
});
