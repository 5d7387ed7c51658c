import Database from "better-sqlite3";
import type { LoseSegment } from "@adaptor/threadstore/testing";

/** Deletes a segment row of the file at `path` with a connection of its own, beneath the store. */
export function loseSegmentRow(path: string): LoseSegment {
  return async (recordId, index) => {
    const database = new Database(path);
    try {
      database
        .prepare(
          `DELETE FROM adaptor_thread_session_segments WHERE record_id = ? AND seq =
             (SELECT seq FROM adaptor_thread_session_segments WHERE record_id = ? ORDER BY seq LIMIT 1 OFFSET ?)`,
        )
        .run(recordId, recordId, index);
    } finally {
      database.close();
    }
  };
}
