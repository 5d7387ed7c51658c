#!/usr/bin/env node
// A scripted ACP agent for fault injection: it speaks JSON-RPC on stdio by hand (no SDK), so it can
// break the protocol on purpose. The scenario is JSON in HOSTILE_ACP_SCENARIO: for each method a
// list of steps run when the request arrives (for "session/prompt" a list of such lists, one per
// prompt, the last one repeating; "session/prompt:<text>" holds the steps for a prompt with that
// exact text, first; "session/list:<cursor>" the steps for a listing from that cursor, "session/list:"
// for one without). A method without steps is answered with a plain result.
//
// Steps (one key each, run in order):
//   { "respond": result }          answer the request with this result
//   { "respondThen": { result, updates } }  answer, and write these session/updates in the same write
//   { "error": { code, message } } answer the request with this error
//   { "update": update }           session/update notification for the request's session
//   { "permission": toolCall }     session/request_permission (options allow / reject); waits for the answer
//   { "permission": toolCall, "options": [...] }  the same with these permission options
//   { "permission": toolCall, "echo": true }        the same, then write {"answered": result} to stderr as one JSON line
//   { "askOnce": toolCall, "grants": path }  session/request_permission (options allow_always / allow / reject) unless
//                                  the grants file (JSON: session id -> true, across processes) holds the session;
//                                  an allow_always answer adds it (an agent that keeps "always" with the session)
//   { "request": method, "params": {...} }  a client request (fs/*, terminal/*) with these params and the
//                                  session's id; waits for the answer
//   { "raw": text }                write text to stdout exactly as given
//   { "longLine": bytes }          write one JSON-RPC notification line of about this many bytes
//   { "bogusReplies": n }          write n JSON-RPC replies to ids never requested, in one write
//   { "stderr": text }             write text to stderr
//   { "stderrParams": true }       write the request's method and params to stderr as one JSON line
//   { "echoParams": true }         an agent_message_chunk whose text is JSON { params, cwd } (the request's
//                                  params and the agent's working directory)
//   { "sleepMs": n }               wait n ms
//   { "awaitFile": path }          wait until this file exists
//   { "closeStdout": true }        close stdout and stay alive
//   { "awaitCancel": true }        wait for the next session/cancel
//   { "awaitCancel": n }           wait until n session/cancel notifications arrived in all
//   { "hang": true }               never go on (the process stays alive)
//   { "later": [steps] }           run these steps after the request's own steps finished
//   { "exit": code }               exit now
//   { "spawnMcpServers": true }    start every stdio server of the request's mcpServers (ended when the agent exits)
//   { "command": [file, ...args] } start this command and wait until it exited and its stdout is closed
//                                  (by every process holding it)
// Requests are handled one at a time, in order; a request arriving while steps run waits.
import { spawn } from "node:child_process";
import { closeSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { createInterface } from "node:readline";

const scenario = JSON.parse(process.env.HOSTILE_ACP_SCENARIO ?? "{}");
const keepAlive = setInterval(() => undefined, 1 << 30);
let stdoutOpen = true;
let nextId = 1;
let prompts = 0;
const answers = new Map();
let cancels = 0;
let cancelled = () => undefined;
const servers = [];
process.on("exit", () => {
  for (const server of servers) server.kill("SIGKILL");
});

const write = (text) =>
  new Promise((resolve) => {
    if (!stdoutOpen) return resolve();
    process.stdout.write(text, () => resolve());
  });
const send = (message) => write(`${JSON.stringify({ jsonrpc: "2.0", ...message })}\n`);

const defaults = {
  initialize: { protocolVersion: 1, agentCapabilities: { loadSession: true }, authMethods: [] },
  "session/new": { sessionId: "hostile-session" },
  "session/load": {},
  "session/set_mode": {},
  "session/set_model": {},
  "session/set_config_option": { configOptions: [] },
  "session/prompt": { stopReason: "end_turn" },
};

function stepsFor(method, params) {
  if (method === "session/prompt") {
    const byText = scenario[`session/prompt:${params?.prompt?.[0]?.text}`];
    if (byText) return byText;
    const all = scenario["session/prompt"] ?? [];
    const index = Math.min(prompts++, all.length - 1);
    return all[index] ?? [];
  }
  if (method === "session/list") return scenario[`session/list:${params?.cursor ?? ""}`] ?? scenario[method] ?? [];
  return scenario[method] ?? [];
}

async function run(steps, id, sessionId, state, request = {}) {
  for (const step of steps) {
    if ("respond" in step) {
      state.answered = true;
      await send({ id, result: step.respond });
    } else if ("respondThen" in step) {
      state.answered = true;
      const lines = [{ id, result: step.respondThen.result }];
      for (const update of step.respondThen.updates) lines.push({ method: "session/update", params: { sessionId, update } });
      await write(lines.map((line) => `${JSON.stringify({ jsonrpc: "2.0", ...line })}\n`).join(""));
    } else if ("error" in step) {
      state.answered = true;
      await send({ id, error: step.error });
    } else if ("update" in step) await send({ method: "session/update", params: { sessionId, update: step.update } });
    else if ("askOnce" in step) {
      const grants = existsSync(step.grants) ? JSON.parse(readFileSync(step.grants, "utf8")) : {};
      if (grants[sessionId] !== true) {
        const result = await ask(sessionId, step.askOnce, [
          { optionId: "allow_always", name: "Always Allow", kind: "allow_always" },
          { optionId: "allow", name: "Allow", kind: "allow_once" },
          { optionId: "reject", name: "Reject", kind: "reject_once" },
        ]);
        if (result?.outcome?.optionId === "allow_always") writeFileSync(step.grants, JSON.stringify({ ...grants, [sessionId]: true }));
      }
    } else if ("permission" in step) {
      const result = await ask(sessionId, step.permission, step.options);
      if (step.echo) await new Promise((resolve) => process.stderr.write(`${JSON.stringify({ answered: result })}\n`, () => resolve()));
    } else if ("request" in step) await clientRequest(step.request, { sessionId, ...step.params });
    else if ("raw" in step) await write(step.raw);
    else if ("bogusReplies" in step) {
      const lines = [];
      for (let n = 0; n < step.bogusReplies; n += 1) lines.push(`{"jsonrpc":"2.0","id":${1_000_000 + n},"result":{}}\n`);
      await write(lines.join(""));
    } else if ("longLine" in step) await send({ method: "session/update", params: { sessionId, filler: "x".repeat(step.longLine) } });
    else if ("stderrParams" in step)
      await new Promise((resolve) =>
        process.stderr.write(`${JSON.stringify({ method: request.method, params: request.params })}\n`, () => resolve()),
      );
    else if ("echoParams" in step) {
      const echoed = JSON.stringify({ params: request.params, cwd: process.cwd() });
      await send({
        method: "session/update",
        params: { sessionId, update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: echoed } } },
      });
    } else if ("stderr" in step) await new Promise((resolve) => process.stderr.write(step.stderr, () => resolve()));
    else if ("sleepMs" in step) await new Promise((resolve) => setTimeout(resolve, step.sleepMs));
    else if ("awaitFile" in step) while (!existsSync(step.awaitFile)) await new Promise((resolve) => setTimeout(resolve, 50));
    else if ("closeStdout" in step) {
      stdoutOpen = false;
      closeSync(1);
    } else if ("awaitCancel" in step) {
      const target = step.awaitCancel === true ? cancels + 1 : step.awaitCancel;
      while (cancels < target) await new Promise((resolve) => (cancelled = resolve));
    } else if ("hang" in step) await new Promise(() => undefined);
    else if ("later" in step) state.later.push(...step.later);
    else if ("exit" in step) process.exit(step.exit);
    else if ("command" in step) {
      const [file, ...args] = step.command;
      await new Promise((resolve) =>
        spawn(file, args, { stdio: ["ignore", "pipe", "ignore"] })
          .on("close", resolve)
          .stdout.resume(),
      );
    } else if ("spawnMcpServers" in step)
      for (const server of request.params?.mcpServers ?? []) {
        if (server.command === undefined) continue;
        const env = { ...process.env, ...Object.fromEntries(server.env.map((v) => [v.name, v.value])) };
        servers.push(spawn(server.command, server.args, { env, stdio: ["pipe", "ignore", "ignore"] }));
      }
  }
}

/** Sends session/request_permission about `toolCall` with `options` (default allow / reject); resolves with the answer's result. */
function ask(sessionId, toolCall, options) {
  return clientRequest("session/request_permission", {
    sessionId,
    toolCall,
    options: options ?? [
      { optionId: "allow", name: "Allow", kind: "allow_once" },
      { optionId: "reject", name: "Reject", kind: "reject_once" },
    ],
  });
}

/** Sends the client request `method` with `params`; resolves with the answer's result (undefined for an error). */
async function clientRequest(method, params) {
  const requestId = `p${nextId++}`;
  const answered = new Promise((resolve) => answers.set(requestId, resolve));
  await send({ id: requestId, method, params });
  return answered;
}

let queue = Promise.resolve();
createInterface({ input: process.stdin }).on("line", (line) => {
  const message = JSON.parse(line);
  if (message.method === undefined) {
    answers.get(message.id)?.(message.result);
    return;
  }
  if (message.method === "session/cancel") {
    cancels += 1;
    cancelled();
    return;
  }
  if (message.id === undefined) return;
  queue = queue.then(async () => {
    const { id, method } = message;
    const sessionId = message.params?.sessionId ?? "hostile-session";
    const state = { answered: false, later: [] };
    await run(stepsFor(method, message.params), id, sessionId, state, message);
    if (!state.answered) {
      if (method in defaults) await send({ id, result: defaults[method] });
      else await send({ id, error: { code: -32601, message: `no method ${method}` } });
    }
    if (state.later.length > 0) void run(state.later, id, sessionId, { answered: true, later: [] });
  });
});
process.stdin.on("end", () => {
  clearInterval(keepAlive);
  process.exit(0);
});
