// A real writer process for the crash-consistency test: opens `<root>/<key>.jsonl` with the
// JSONL backend and appends deterministic events as fast as it can (four appends in flight),
// printing each sequence once its append resolved (was fsynced, or written under `never`), until it is killed.
import { JsonlEventBackend } from "@adaptor/sessionrecorder";
import { crashEvent } from "./crash-event.js";

const [root, key, fsync] = process.argv.slice(2);
if (!root || !key || (fsync !== "always" && fsync !== "never")) throw new Error("usage: crash-writer <root> <key> always|never");
const backend = new JsonlEventBackend({ root, fsync });
const writer = await backend.openWriter(key);
process.stdout.write(`open ${writer.lastSequence}\n`);
const IN_FLIGHT = 4;
async function lane(): Promise<never> {
  for (;;) {
    const record = await writer.append(crashEvent(writer.lastSequence + 1));
    process.stdout.write(`${record.sequence}\n`);
  }
}
await Promise.all(Array.from({ length: IN_FLIGHT }, lane));
