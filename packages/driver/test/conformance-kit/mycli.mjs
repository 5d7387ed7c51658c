#!/usr/bin/env node
// "mycli": a small one-shot coding CLI for the conformance kit's own tests. JSON Lines on stdin/stdout.
// stdin:  {"type":"prompt","text":...}  then  {"type":"approval","id":...,"allow":bool,"reason"?}
// stdout: {"type":"delta","text"} {"type":"tool_request","id","command"} {"type":"tool_result","id","output","is_error"}
//         {"type":"result","session_id","text","usage":{"input_tokens","output_tokens"}}  | {"type":"error","code","message"} (exit 1)
// flags: --resume <id>, --session-dir <dir>, --read-only (a tool that writes fails)
// Prompts: `TOOL write <path>` (asks, then writes <path> when allowed), `SLOW`, `FAIL <msg>`, `CRASH`
// (half a line, then exit 139); anything else is echoed. Usage: input 11 per history entry, output = answer length.
import { createInterface } from "node:readline";
import { mkdirSync, readFileSync, writeFileSync, existsSync } from "node:fs";
import { randomUUID } from "node:crypto";
import { join } from "node:path";

const argv = process.argv.slice(2);
const flag = (name) => {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : undefined;
};
const dir = flag("--session-dir") ?? "/tmp/mycli-sessions";
mkdirSync(dir, { recursive: true });
const send = (m) => process.stdout.write(JSON.stringify(m) + "\n");
const resume = flag("--resume");
let history = [];
if (resume !== undefined) {
  const f = join(dir, `${resume}.json`);
  if (!existsSync(f)) {
    send({ type: "error", code: "session_not_found", message: `no session ${resume}` });
    process.exit(1);
  }
  history = JSON.parse(readFileSync(f, "utf8")).history;
}
const sessionId = resume ?? randomUUID();
const waiting = new Map();
let cancelSlow = () => {};
createInterface({ input: process.stdin }).on("line", (line) => {
  const m = JSON.parse(line);
  if (m.type === "approval") return waiting.get(m.id)?.(m);
  if (m.type === "interrupt") return cancelSlow();
  if (m.type === "prompt") void turn(m.text);
});
async function turn(text) {
  history.push({ role: "user", text });
  if (text.startsWith("FAIL ")) {
    send({ type: "error", code: "model_error", message: text.slice(5) });
    process.exit(1);
  }
  if (text === "CRASH") {
    process.stdout.write('{"type":"delta","text":"par');
    process.exit(139);
  }
  if (text.startsWith("SLOW")) {
    await new Promise((r) => {
      cancelSlow = r;
      setTimeout(r, 60_000);
    });
    send({ type: "error", code: "interrupted", message: "interrupted" });
    process.exit(1);
  }
  let answer;
  if (text.startsWith("TOOL ")) {
    const id = `t${history.length}`;
    const command = text.slice(5);
    send({ type: "tool_request", id, command });
    const a = await new Promise((r) => waiting.set(id, r));
    const blocked = a.allow && argv.includes("--read-only") && command.startsWith("write ");
    if (a.allow && !blocked && command.startsWith("write ")) writeFileSync(command.slice(6), "written by mycli\n");
    const output = blocked ? "read-only: not written" : a.allow ? `ran ${command}` : `denied: ${a.reason ?? "no reason"}`;
    send({ type: "tool_result", id, output, is_error: !a.allow || blocked });
    answer = a.allow && !blocked ? `tool ok: ${command}` : `tool denied`;
  } else {
    answer = `echo: ${text} (history ${history.length})`;
  }
  for (const w of answer.split(/(?= )/)) send({ type: "delta", text: w });
  history.push({ role: "assistant", text: answer });
  writeFileSync(join(dir, `${sessionId}.json`), JSON.stringify({ id: sessionId, history }));
  send({ type: "result", session_id: sessionId, text: answer, usage: { input_tokens: 11 * history.length, output_tokens: answer.length } });
  process.exit(0);
}
