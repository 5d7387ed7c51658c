// The adaptor web chat: a page where you type a task for a real Claude Code binary, watch its
// text and tool calls stream in, and approve or deny each tool call. By default the model behind
// the CLI is the testkit's scripted server on 127.0.0.1 (no account, no network); with --live it
// is your own Claude setup. `--port <n>` picks the port (default 5173); `--allow-host <name>`
// (repeatable) lets the chat answer another host name than 127.0.0.1 / localhost.
// `--fleet <postgres-url>` (or ADAPTOR_WEB_CHAT_FLEET) runs the chat on a fleet: `--role front`
// serves the page and submits tasks, `--role worker` runs them, `--role both` (the default) does both.
import { PortInUseError, startWebChat, startWebChatWorker } from "./server.js";

const args = process.argv.slice(2);
const live = args.includes("--live");
const portFlag = args.indexOf("--port");
const port = portFlag >= 0 ? Number(args[portFlag + 1]) : 5173;
const valueOf = (flag: string): string | undefined => {
  const index = args.indexOf(flag);
  return index >= 0 ? args[index + 1] : undefined;
};
const fleetUrl = valueOf("--fleet") ?? process.env.ADAPTOR_WEB_CHAT_FLEET;
const role = valueOf("--role") ?? "both";
if (role !== "front" && role !== "worker" && role !== "both") {
  console.error(`web chat: --role is front, worker or both, got ${JSON.stringify(role)}`);
  process.exit(2);
}
const allowedHosts = args.flatMap((arg, index) => (arg === "--allow-host" && args[index + 1] ? [args[index + 1]!] : []));

if (!Number.isInteger(port) || port < 0 || port > 65_535) {
  console.error(`web chat: --port needs a port number from 0 to 65535, got ${JSON.stringify(args[portFlag + 1] ?? "")}`);
  process.exit(2);
}

if (fleetUrl && role === "worker") {
  const worker = await startWebChatWorker({ connectionString: fleetUrl, live });
  console.log(`web chat worker: serving tasks of the fleet (each in a fresh folder under ${worker.projectDir})`);
  let stopping = false;
  // `on`, not `once`: a second Ctrl+C while draining must not end the process either (with no listener
  // of ours left, the driver kit would end the CLIs and the process at once).
  const drain = (): void => {
    if (stopping) return;
    stopping = true;
    void worker.close().then(() => process.exit(0));
  };
  process.on("SIGINT", drain);
  process.on("SIGTERM", drain);
} else {
  await front();
}

async function front(): Promise<void> {
  let chat;
  try {
    chat = await startWebChat({
      live,
      port,
      allowedHosts,
      ...(fleetUrl ? { fleet: { connectionString: fleetUrl, worker: role === "both" } } : {}),
    });
  } catch (error) {
    if (!(error instanceof PortInUseError)) throw error;
    console.error(`web chat: ${error.message}`);
    process.exit(1);
  }
  console.log(
    `web chat: ${chat.url}  (${live ? "your Claude setup" : "scripted model on 127.0.0.1"}; ${
      fleetUrl
        ? `on a fleet, ${role === "both" ? "a front-end and a worker" : "a front-end"}`
        : `each task in a fresh folder under ${chat.projectDir}`
    })`,
  );
  console.log("press Ctrl+C to stop");
  const stop = (): void => {
    void chat.close().then(() => process.exit(0));
  };
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
}
