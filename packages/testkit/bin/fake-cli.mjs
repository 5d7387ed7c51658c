#!/usr/bin/env node
// adaptor fake CLI: replays a scripted scenario of stdout/stderr bytes, stdin reads, signals,
// grandchildren, hangs and exits, for fault-injection tests of the process plumbing and drivers.
// Its argv is ignored (drivers pass their own flags), except `--version` alone: it prints
// ADAPTOR_FAKE_CLI_VERSION (default "fake-cli", no version) and exits 0. The scenario is a JSON array of steps, read
// from env ADAPTOR_FAKE_CLI_SCENARIO, else from the file named by ADAPTOR_FAKE_CLI_SCENARIO_FILE.
// Steps (see FakeCliStep in @adaptor/testkit/fake-cli): write, writeBase64, stderr, sleepMs,
// awaitStdinLine, awaitStdinEnd, echoStdinLine, closeStdin, closeStdout, ignoreSigterm, spawnGrandchild,
// hang, exit.
// Exit codes: the scenario's `exit`, else 0; 2 for a bad scenario; 3 when stdin ended while a step
// waited for a line. No dependencies.
import { spawn } from "node:child_process";
import { closeSync, readFileSync } from "node:fs";

const SCENARIO_ENV = "ADAPTOR_FAKE_CLI_SCENARIO";
const SCENARIO_FILE_ENV = "ADAPTOR_FAKE_CLI_SCENARIO_FILE";
const VERSION_ENV = "ADAPTOR_FAKE_CLI_VERSION";

/** @param {string} message @returns {never} */
function badScenario(message) {
  process.stderr.write(`fake-cli: ${message}\n`);
  process.exit(2);
}

/** Checks one step: an object with exactly one known key of the right type. */
function checkStep(step, index) {
  const where = `step ${index} ${JSON.stringify(step)}`;
  if (typeof step !== "object" || step === null || Array.isArray(step)) badScenario(`${where}: not an object`);
  const keys = Object.keys(step);
  if (keys.length !== 1) badScenario(`${where}: expected exactly one key`);
  const key = /** @type {string} */ (keys[0]);
  const value = step[key];
  switch (key) {
    case "write":
    case "writeBase64":
    case "stderr":
      if (typeof value !== "string") badScenario(`${where}: ${key} must be a string`);
      return;
    case "sleepMs":
      if (typeof value !== "number" || !Number.isFinite(value) || value < 0) badScenario(`${where}: sleepMs must be a number >= 0`);
      return;
    case "exit":
      if (!Number.isInteger(value) || value < 0 || value > 255) badScenario(`${where}: exit must be an integer 0..255`);
      return;
    case "awaitStdinLine":
    case "awaitStdinEnd":
    case "echoStdinLine":
    case "closeStdin":
    case "closeStdout":
    case "ignoreSigterm":
    case "spawnGrandchild":
    case "hang":
      if (value !== true) badScenario(`${where}: ${key} must be true`);
      return;
    default:
      badScenario(`${where}: unknown step ${key}`);
  }
}

function loadScenario() {
  let source = process.env[SCENARIO_ENV];
  if (source === undefined || source === "") {
    const file = process.env[SCENARIO_FILE_ENV];
    if (!file) badScenario(`set ${SCENARIO_ENV} or ${SCENARIO_FILE_ENV}`);
    try {
      source = readFileSync(file, "utf8");
    } catch (err) {
      badScenario(`cannot read ${SCENARIO_FILE_ENV}=${file}: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  let steps;
  try {
    steps = JSON.parse(source);
  } catch (err) {
    badScenario(`scenario is not JSON: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (!Array.isArray(steps)) badScenario("scenario must be a JSON array of steps");
  steps.forEach(checkStep);
  return steps;
}

/** Resolves once `data` was handed to the OS, so steps keep their byte order and timing. */
function writeTo(stream, data) {
  return new Promise((resolve) => stream.write(data, () => resolve(undefined)));
}

// A parent that stopped reading must not crash the fake with an unhandled EPIPE.
process.stdout.on("error", () => {});
process.stderr.on("error", () => {});

/** Complete stdin lines not consumed yet; stdin is read only once a step asks for a line. */
const stdin = { lines: /** @type {string[]} */ ([]), partial: Buffer.alloc(0), ended: false, reading: false, wake: () => {} };

function startReadingStdin() {
  if (stdin.reading) return;
  stdin.reading = true;
  process.stdin.on("data", (chunk) => {
    let data = Buffer.concat([stdin.partial, chunk]);
    for (let nl = data.indexOf(0x0a); nl !== -1; nl = data.indexOf(0x0a)) {
      stdin.lines.push(data.subarray(0, nl).toString("utf8").replace(/\r$/, ""));
      data = data.subarray(nl + 1);
    }
    stdin.partial = Buffer.from(data);
    stdin.wake();
  });
  const onEnd = () => {
    stdin.ended = true;
    stdin.wake();
  };
  process.stdin.on("end", onEnd);
  process.stdin.on("close", onEnd);
  process.stdin.on("error", onEnd);
}

/** The next complete stdin line, or exit 3 when stdin ends first. */
async function nextStdinLine() {
  startReadingStdin();
  for (;;) {
    const line = stdin.lines.shift();
    if (line !== undefined) return line;
    if (stdin.ended) {
      await writeTo(process.stderr, "fake-cli: stdin ended before a line arrived\n");
      process.exit(3);
    }
    await new Promise((resolve) => {
      stdin.wake = () => resolve(undefined);
    });
  }
}

/** Waits until stdin ends (lines that arrive meanwhile are read and dropped), as a CLI does that exits when its input closes. */
async function stdinEnd() {
  startReadingStdin();
  while (!stdin.ended) {
    stdin.lines.length = 0;
    await new Promise((resolve) => {
      stdin.wake = () => resolve(undefined);
    });
  }
  stdin.lines.length = 0;
}

/** Closes fd 0 for real (libuv never closes stdio fds on destroy), so the parent's writes get EPIPE. */
function closeStdin() {
  if (stdin.reading) process.stdin.destroy();
  stdin.ended = true;
  try {
    closeSync(0);
  } catch {
    // already closed
  }
}

/** Closes fd 1 for real, so the parent reads the end of stdout while this process lives on. */
function closeStdout() {
  try {
    closeSync(1);
  } catch {
    // already closed
  }
}

async function run(step) {
  if ("write" in step) return writeTo(process.stdout, Buffer.from(step.write, "utf8"));
  if ("writeBase64" in step) return writeTo(process.stdout, Buffer.from(step.writeBase64, "base64"));
  if ("stderr" in step) return writeTo(process.stderr, Buffer.from(step.stderr, "utf8"));
  if ("sleepMs" in step) return new Promise((resolve) => setTimeout(resolve, step.sleepMs));
  if ("awaitStdinLine" in step) return void (await nextStdinLine());
  if ("awaitStdinEnd" in step) return stdinEnd();
  if ("echoStdinLine" in step) {
    const line = await nextStdinLine();
    let parsed;
    try {
      parsed = JSON.parse(line);
    } catch {
      parsed = line;
    }
    return writeTo(process.stdout, `${JSON.stringify({ type: "echo", line: parsed })}\n`);
  }
  if ("closeStdin" in step) return closeStdin();
  if ("closeStdout" in step) return closeStdout();
  if ("ignoreSigterm" in step) return void process.on("SIGTERM", () => {});
  if ("spawnGrandchild" in step) {
    // Same process group (not detached), no stdio of ours: it dies only if its group is killed.
    const grandchild = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { stdio: "ignore" });
    grandchild.on("error", () => {});
    return writeTo(process.stdout, `${JSON.stringify({ type: "grandchild", pid: grandchild.pid })}\n`);
  }
  if ("hang" in step) {
    setInterval(() => {}, 1 << 30);
    return new Promise(() => {});
  }
  if ("exit" in step) process.exit(step.exit); // every earlier write was already flushed
}

// `--version` alone (a driver's version probe) answers at once instead of replaying the scenario.
if (process.argv.length === 3 && process.argv[2] === "--version") {
  await writeTo(process.stdout, `${process.env[VERSION_ENV] ?? "fake-cli"}\n`);
  process.exit(0);
}
for (const step of loadScenario()) await run(step);
process.exit(0);
