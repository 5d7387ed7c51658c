// A recorder process for the cross-process tests: argv mode, url, schema, key, ...
//   race <name> <rounds> <per>: connects, prints "ready", waits for a line on stdin, then per round
//     takes the key's writer (retrying while it is held), appends <per> events one by one and
//     closes; prints "won" (then waits for another line before appending) or "refused" for its
//     first try, and "done" at the end.
//   hold: takes the writer, appends one event, prints "holding" and waits (to be SIGKILLed).
//   follow <after>: prints each followed record as JSON, one per line, until an event { stop: true }.
import { createInterface } from "node:readline";
import { isError } from "@adaptor/errors";
import { ErrEventLogLocked, type EventLogWriter } from "@adaptor/sessionrecorder";
import { PostgresEventBackend } from "@adaptor/sessionrecorder-postgres";

const [mode, url, schema, key, ...rest] = process.argv.slice(2) as [string, string, string, string, ...string[]];
const backend = new PostgresEventBackend({ connectionString: url, schema });
const say = (line: string): void => void process.stdout.write(`${line}\n`);

if (mode === "race") {
  const [name, rounds, per] = rest as [string, string, string];
  // Lines from stdin, kept until asked for.
  const lines: string[] = [];
  const waiting: (() => void)[] = [];
  const input = createInterface({ input: process.stdin });
  input.on("line", (line) => (waiting.length > 0 ? waiting.shift()!() : lines.push(line)));
  const nextLine = (): Promise<void> =>
    lines.length > 0 ? Promise.resolve(void lines.shift()) : new Promise<void>((resolve) => waiting.push(resolve));
  // Connected before the race: the presence connection and a pooled one.
  await (await backend.openWriter(`warm-${name}`)).close();
  say("ready");
  await nextLine();
  let first = true;
  for (let round = 0; round < Number(rounds); round++) {
    let writer: EventLogWriter | undefined;
    while (!writer) {
      try {
        writer = await backend.openWriter(key);
        if (first) {
          // The first race's winner holds the key until told, so the loser's first try meets it.
          say("won");
          await nextLine();
        }
      } catch (error) {
        if (!isError(error, ErrEventLogLocked)) throw error;
        if (first) say("refused");
        await new Promise((r) => setTimeout(r, 5));
      }
      first = false;
    }
    for (let i = 0; i < Number(per); i++) await writer.append({ writer: name, round, i });
    await writer.close();
  }
  await backend.close();
  input.close();
  say("done");
} else if (mode === "hold") {
  const writer = await backend.openWriter(key);
  await writer.append({ from: "holder" });
  say("holding");
  setInterval(() => undefined, 1000);
} else if (mode === "follow") {
  for await (const record of backend.follow(key, { after: Number(rest[0]) })) {
    say(JSON.stringify(record));
    if ((record.event as { stop?: boolean } | null)?.stop === true) break;
  }
  await backend.close();
}
