// The adaptor web chat: a page where you type a task for a real Claude Code binary, watch its
// text and tool calls stream in, and approve or deny each tool call. By default the model behind
// the CLI is the testkit's scripted server on 127.0.0.1 (no account, no network); with --live it
// is your own Claude setup. `--port <n>` picks the port (default 5173).
import { startWebChat } from "./server.js";

const live = process.argv.includes("--live");
const portFlag = process.argv.indexOf("--port");
const port = portFlag >= 0 ? Number(process.argv[portFlag + 1]) : 5173;

const chat = await startWebChat({ live, port });
console.log(
  `web chat: ${chat.url}  (${live ? "your Claude setup" : "scripted model on 127.0.0.1"}; each task in a fresh folder under ${chat.projectDir})`,
);
console.log("press Ctrl+C to stop");
const stop = (): void => {
  void chat.close().then(() => process.exit(0));
};
process.once("SIGINT", stop);
process.once("SIGTERM", stop);
