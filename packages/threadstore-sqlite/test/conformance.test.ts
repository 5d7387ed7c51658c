import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describeSegmentsFromConformance, describeThreadStoreConformance } from "@adaptor/threadstore/testing";
import Database from "better-sqlite3";
import { SqliteThreadStore } from "@adaptor/threadstore-sqlite";
import { loseSegmentRow } from "./support/lose-segment.js";

// Every test gets its own file in a fresh temp dir; expiry is judged by the process clock, so the
// kit waits in real time with short TTLs.
describeThreadStoreConformance(
  "sqlite",
  async ({ faults, broken }) => {
    const dir = mkdtempSync(join(tmpdir(), "adaptor-sqlite-kit-"));
    const cleanup = () => rmSync(dir, { recursive: true, force: true });
    if (broken) {
      // A handle closed behind the store's back: every statement fails like a lost connection.
      const database = new Database(join(dir, "broken.db"));
      const store = new SqliteThreadStore({ database, faults });
      database.close();
      return { store, cleanup };
    }
    const path = join(dir, "threads.db");
    // A second instance on the same file, as a restarted process opens it.
    return {
      store: new SqliteThreadStore({ path, faults }),
      cleanup,
      reopen: async () => new SqliteThreadStore({ path }),
      loseSegment: loseSegmentRow(path),
    };
  },
  { sessionState: true, releaseLeases: true },
);

describeSegmentsFromConformance("sqlite", async ({ faults }) => {
  const dir = mkdtempSync(join(tmpdir(), "adaptor-sqlite-kit-"));
  return {
    store: new SqliteThreadStore({ path: join(dir, "threads.db"), faults }),
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
});
