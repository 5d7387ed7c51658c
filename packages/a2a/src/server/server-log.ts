import { AsyncLocalStorage } from "node:async_hooks";
import { redactCredentials as redactRemoteText } from "@adaptor/a2a-client";
import { currentSecretEnvValues, redactCredentials } from "adaptor";

/**
 * Where an A2A server's diagnostics go, one line each: a refused or failed client request (an
 * unknown task, an unsupported protocol version, an answer that lost a race), a task event the
 * `@a2a-js/sdk` server ignored. `line` names the error and its message's first line, with
 * credentials redacted as a failure's public message is (`publicMessage` of `adaptor`: API keys
 * and tokens by their shape, `Bearer`/`Basic` values, credential-named pairs, the host's credential
 * variables), control characters removed and no stack trace; `level` is `"error"` for what the SDK reports as an
 * error, else `"warn"`.
 */
export type A2AServerLog = (line: string, level: "error" | "warn") => void;

/** The default {@link A2AServerLog}: each line to `console.warn`, prefixed `a2a server: `. */
export const consoleWarnLog: A2AServerLog = (line) => console.warn(`a2a server: ${line}`);

/** Longest line a {@link A2AServerLog} gets, in characters. */
const MAX_LINE_CHARS = 500;

const scope = new AsyncLocalStorage<A2AServerLog>();
const INSTALLED = Symbol.for("adaptor.a2a.serverLogRouting");

/**
 * The `@a2a-js/sdk` server writes its diagnostics with `console.error`/`warn`/`info` (whole errors,
 * stacks included) and takes no logger. While a request of an A2A server is handled (and in the
 * work it starts), those calls go to the server's log as one line each; everywhere else `console`
 * behaves as before. Installed once per process.
 */
function install(): void {
  const target = console as unknown as Record<symbol, unknown>;
  if (target[INSTALLED]) return;
  target[INSTALLED] = true;
  for (const method of ["error", "warn", "info"] as const) {
    const original = console[method];
    console[method] = function routed(this: Console, ...args: unknown[]): void {
      const log = scope.getStore();
      if (!log) return original.apply(this, args);
      scope.exit(() => {
        try {
          log(oneLine(args), method === "error" ? "error" : "warn");
        } catch {
          // a log that throws loses its line, not the request
        }
      });
    };
  }
}

/** Runs `fn` (and the work it starts) with the SDK's console diagnostics going to `log`. */
export function withServerLog<T>(log: A2AServerLog, fn: () => T): T {
  install();
  return scope.run(log, fn);
}

/** Runs `fn` (host code: a runner, `authorize`) outside any server's log: its console is its own. */
export function outsideServerLog<T>(fn: () => T): T {
  return scope.exit(fn);
}

/** The console arguments as one line: an error by its name and first message line, no stack. */
function oneLine(args: readonly unknown[]): string {
  const parts = args.map((arg) => {
    if (arg instanceof Error) {
      const reason = (arg as { reason?: unknown }).reason;
      return `${arg.name}: ${arg.message.split("\n")[0] ?? ""}${typeof reason === "string" ? ` (${reason})` : ""}`;
    }
    if (typeof arg === "string") return arg;
    try {
      return JSON.stringify(arg) ?? String(arg);
    } catch {
      return String(arg);
    }
  });
  // Control characters and terminal escapes out (the client's rule for a remote's text), then
  // what a server redacts from every message it sends (publicMessage's rule): API keys and tokens
  // by their shape, credential-named pairs, the host's credential variables.
  const line = redactCredentials(
    redactRemoteText(
      parts
        .join(" ")
        .replace(/\s*\n\s*/g, " ")
        .trim(),
    ),
    currentSecretEnvValues(),
  );
  return line.length > MAX_LINE_CHARS ? `${line.slice(0, MAX_LINE_CHARS - 1)}…` : line;
}
