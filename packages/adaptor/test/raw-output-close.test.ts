import { readdirSync, readlinkSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { rawStreams, spawnCli } from "@adaptor/driver/process";
import { Agent, RunError } from "adaptor";
import { scriptedDriver } from "./scripted-driver.js";

/** One row of the CLI's output: multi-byte characters, so decoding is exercised too. */
const ROW = "é😀".repeat(170) + "xyz\n";
/** 6 MiB kept by one window: above the 4 MiB of blocks in use past which kept output spills to a file. */
const ROWS = 6 * 1024;
const SCRIPT = `const row = ${JSON.stringify(ROW)}; for (let i = 0; i < ${ROWS}; i++) process.stdout.write(row)`;

/** Spill files this process holds open now (removed from the temp folder at once, so named "(deleted)"). */
function spillFiles(): string[] {
  const target = (fd: string): string => {
    try {
      return readlinkSync(`/proc/self/fd/${fd}`);
    } catch {
      return ""; // closed while listing
    }
  };
  return readdirSync("/proc/self/fd")
    .map(target)
    .filter((path) => path.includes("adaptor-raw-"));
}

/** A driver whose every run is a real `node` process writing {@link ROWS} rows; `fail`: a business failure. */
function spillingDriver(fail = false) {
  return scriptedDriver(async () => {
    await using proc = await spawnCli({
      command: process.execPath,
      args: ["-e", SCRIPT],
      device: "node",
      maxRawBytes: 8 * 1024 * 1024,
    });
    let rows = 0;
    for await (const line of proc.lines()) if (line.kind === "text") rows++;
    await proc.exited;
    expect(rows).toBe(ROWS);
    return {
      text: "written",
      raw: rawStreams(proc.takeOutput()),
      ...(fail ? { failure: { reason: "agent_error", message: "the CLI failed after writing" } } : {}),
    };
  });
}

describe("raw output kept in a spill file", () => {
  it("agent.close() reads the unread spilled raw output of its Results (a RunError's too) into memory and closes the files; raw() then gives the whole output, and another agent's Result keeps its file", async () => {
    const before = spillFiles().length;
    const agent = new Agent(spillingDriver());
    const failing = new Agent(spillingDriver(true));
    const other = new Agent(spillingDriver());
    try {
      const kept = await agent.run("write");
      const read = await agent.run("write");
      expect(read.raw().stdout.length).toBe(ROWS * (3 * 170 + 4)); // read now: its file is closed at once
      const error = await failing.run("write").catch((e: unknown) => e);
      expect(error).toBeInstanceOf(RunError);
      const failed = (error as RunError).result;
      const elsewhere = await other.run("write");
      expect(spillFiles().length - before).toBe(3); // kept, failed, elsewhere: unread, each in its file

      await agent.close();
      await failing.close();
      expect(spillFiles().length - before).toBe(1); // only the open agent's Result still holds one

      const whole = ROW.repeat(ROWS);
      expect(kept.raw().stdout).toBe(whole);
      expect(kept.raw()).toMatchObject({ stdoutBytes: Buffer.byteLength(whole), stdoutTruncated: false, stderr: "" });
      expect(failed.raw().stdout).toBe(whole);
      expect(read.raw().stdout).toBe(whole);
      expect(spillFiles().length - before).toBe(1);
      expect(elsewhere.raw().stdout).toBe(whole); // read: its file closed by the read itself
      expect(spillFiles().length - before).toBe(0);
    } finally {
      await agent.close();
      await failing.close();
      await other.close();
    }
  });
});
