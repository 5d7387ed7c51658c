#!/usr/bin/env node
// A fake `cursor-agent` for the driver's tests: replays the print-mode stream-json format of the
// CLI's public documentation (system init, the prompt echoed as a user line, assistant text in
// pieces with --stream-partial-output, tool_call started/completed with `<kind>ToolCall`
// payloads, a terminal `result` line). Scripted by the prompt (read from stdin):
//   FAIL <message>   → a result line with is_error and <message>
//   SLOW             → streams nothing more until killed
//   TOOL <command>   → a shellToolCall, run only with --force (else rejected), then text
//   anything else    → "echo: <prompt>" (resumed: "echo again: <prompt>")
// Chats persist as files under $FAKE_CURSOR_HOME, so --resume finds them; an unknown chat id
// exits 1 with "Error: chat <id> not found" on stderr.
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { randomUUID } from "node:crypto";

const args = process.argv.slice(2);
const flag = (name) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
const home = process.env.FAKE_CURSOR_HOME ?? join(process.cwd(), ".fake-cursor");
mkdirSync(home, { recursive: true });
const resume = flag("--resume");
if (resume && !existsSync(join(home, resume))) {
  process.stderr.write(`Error: chat ${resume} not found\n`);
  process.exit(1);
}
const session = resume ?? randomUUID();
writeFileSync(join(home, session), "");
const model = flag("--model") ?? "Auto";
const partial = args.includes("--stream-partial-output");
const send = (line) => process.stdout.write(JSON.stringify({ ...line, session_id: session }) + "\n");

let prompt = "";
process.stdin.setEncoding("utf8");
process.stdin.on("data", (chunk) => (prompt += chunk));
process.stdin.on("end", () => {
  send({ type: "system", subtype: "init", apiKeySource: "env", cwd: process.cwd(), model, permissionMode: "default" });
  send({ type: "user", message: { role: "user", content: [{ type: "text", text: prompt }] } });
  const say = (text) => {
    const pieces = partial ? text.split(/(?= )/) : [text];
    for (const piece of pieces) send({ type: "assistant", message: { role: "assistant", content: [{ type: "text", text: piece }] } });
  };
  const result = (text, isError = false) =>
    send({
      type: "result",
      subtype: isError ? "error" : "success",
      is_error: isError,
      duration_ms: 5,
      duration_api_ms: 5,
      result: text,
      request_id: randomUUID(),
    });
  if (prompt.startsWith("FAIL ")) return result(prompt.slice(5), true);
  if (prompt === "SLOW") return setInterval(() => undefined, 1000);
  if (prompt.startsWith("TOOL ")) {
    const command = prompt.slice(5);
    const call_id = `toolu_${randomUUID()}`;
    send({ type: "tool_call", subtype: "started", call_id, tool_call: { shellToolCall: { args: { command } } } });
    const outcome = args.includes("--force")
      ? { success: { command, exitCode: 0, stdout: `ran ${command}`, stderr: "" } }
      : { rejected: { command, reason: "not allowed without --force" } };
    send({ type: "tool_call", subtype: "completed", call_id, tool_call: { shellToolCall: { args: { command }, result: outcome } } });
    const text = outcome.success ? `ran ${command}` : `could not run ${command}`;
    say(text);
    return result(text);
  }
  const text = `${resume ? "echo again" : "echo"}: ${prompt}`;
  say(text);
  result(text);
});
