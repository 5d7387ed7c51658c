// A process of the stale-lock race: on `take` it opens the key's writer (taking over the stale
// lock the test left) and appends one record, answering `took` with its sequence or `refused`;
// on `release` it closes the writer; on `exit` it closes the backend and disconnects.
import { JsonlEventBackend, type EventLogWriter } from "@adaptor/sessionrecorder";

type Command = { type: "take"; key: string; round: number } | { type: "release" } | { type: "exit" };

const backend = new JsonlEventBackend({ root: process.argv[2]!, fsync: "never" });
let writer: EventLogWriter | undefined;
process.on("message", (command: Command) => {
  void (async () => {
    if (command.type === "take") {
      try {
        writer = await backend.openWriter(command.key);
        const record = await writer.append({ pid: process.pid, round: command.round });
        process.send!({ type: "took", sequence: record.sequence });
      } catch (error) {
        process.send!({ type: "refused", name: (error as Error).name, message: (error as Error).message });
      }
    } else if (command.type === "release") {
      await writer?.close();
      writer = undefined;
      process.send!({ type: "released" });
    } else {
      await backend.close();
      process.disconnect();
    }
  })();
});
process.send!({ type: "ready" });
