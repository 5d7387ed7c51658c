#!/usr/bin/env node
// The testkit's fake CLI (its path in env FLEET_FAKE_CLI) behind a pipe that appends each approval
// answer the driver sends it (the JSON-RPC response to the fake's request id 9) to the file env
// FLEET_ANSWER_COUNTER names, one line each: how many times an approved call reached a CLI, which
// is how many times a real CLI would have run it. SIGTERM is passed on; it exits as the fake does.
import { spawn } from "node:child_process";
import { appendFileSync } from "node:fs";
import { createInterface } from "node:readline";

const counter = process.env.FLEET_ANSWER_COUNTER;
const child = spawn(process.env.FLEET_FAKE_CLI, process.argv.slice(2), { stdio: ["pipe", "inherit", "inherit"] });
child.stdin.on("error", () => {});
for (const signal of ["SIGTERM", "SIGINT"]) process.on(signal, () => child.kill(signal));
child.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
const lines = createInterface({ input: process.stdin });
lines.on("line", (line) => {
  let message;
  try {
    message = JSON.parse(line);
  } catch {
    message = undefined;
  }
  if (counter && message?.id === 9 && message.result !== undefined) appendFileSync(counter, `${line}\n`);
  child.stdin.write(`${line}\n`);
});
lines.on("close", () => child.stdin.end());
