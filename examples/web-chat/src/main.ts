// The adaptor web chat: a page where you type a task for a real Claude Code binary, watch its
// text and tool calls stream in, and approve or deny each tool call. By default the model behind
// the CLI is the testkit's scripted server on 127.0.0.1 (no account, no network); with --live it
// is your own Claude setup. `--port <n>` picks the port (default 5173); `--allow-host <name>`
// (repeatable) lets the chat answer another host name than 127.0.0.1 / localhost.
import { PortInUseError, startWebChat } from "./server.js";

const args = process.argv.slice(2);
const live = args.includes("--live");
const portFlag = args.indexOf("--port");
const port = portFlag >= 0 ? Number(args[portFlag + 1]) : 5173;
const allowedHosts = args.flatMap((arg, index) => (arg === "--allow-host" && args[index + 1] ? [args[index + 1]!] : []));

if (!Number.isInteger(port) || port < 0 || port > 65_535) {
  console.error(`web chat: --port needs a port number from 0 to 65535, got ${JSON.stringify(args[portFlag + 1] ?? "")}`);
  process.exit(2);
}

let chat;
try {
  chat = await startWebChat({ live, port, allowedHosts });
} catch (error) {
  if (!(error instanceof PortInUseError)) throw error;
  console.error(`web chat: ${error.message}`);
  process.exit(1);
}
console.log(
  `web chat: ${chat.url}  (${live ? "your Claude setup" : "scripted model on 127.0.0.1"}; each task in a fresh folder under ${chat.projectDir})`,
);
console.log("press Ctrl+C to stop");
const stop = (): void => {
  void chat.close().then(() => process.exit(0));
};
process.once("SIGINT", stop);
process.once("SIGTERM", stop);
