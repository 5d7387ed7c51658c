// The adaptor quickstart: a real Claude Code binary fixes a failing test in a scratch project,
// through the SDK. By default the model behind the CLI is the testkit's scripted server on
// 127.0.0.1 (no account, no network); with --live it is your own Claude setup.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { claude } from "@adaptor/claude";
import { claudeTestEnv, startAnthropicServer } from "@adaptor/testkit";
import { Agent, RunError, type AgentEvent } from "adaptor";
import { makeScratchProject, testsPass } from "./scratch-project.js";
import { fixTheTestScript } from "./scripted-model.js";

const live = process.argv.includes("--live");
const PROMPT = "There is a failing test in this project. Read the code, fix it, and run `node --test` to check.";

async function main(): Promise<number> {
  const projectDir = await mkdtemp(join(tmpdir(), "adaptor-quickstart-"));
  const cleanups: (() => Promise<void>)[] = [() => rm(projectDir, { recursive: true, force: true })];
  try {
    let driver = claude({ cwd: projectDir });
    if (!live) {
      const server = await startAnthropicServer({ rules: fixTheTestScript(projectDir) });
      cleanups.push(() => server.close());
      const env = await claudeTestEnv({ server });
      cleanups.push(() => env.cleanup());
      driver = claude({ cwd: projectDir, env: env.env, inheritEnv: false, model: "claude-sonnet-4-5" });
    }
    await makeScratchProject(projectDir);
    console.log(`project: ${projectDir} (${live ? "your Claude setup" : "scripted model on 127.0.0.1"})`);
    console.log(`tests before: ${(await testsPass(projectDir)) ? "pass" : "FAIL"}\n`);

    const agent = new Agent(driver);
    cleanups.push(() => agent.close());
    const stream = agent.stream(PROMPT, {
      timeoutMs: live ? 300_000 : 60_000,
      onApproval: (request) => {
        console.log(`\n  [approve] ${request.title}`);
        request.approve();
      },
    });
    for await (const event of stream) print(event);

    try {
      const result = await stream.result();
      console.log("\n--- result");
      console.log(`text:     ${result.text}`);
      console.log(`model:    ${result.model ?? "?"}`);
      console.log(`usage:    ${result.usage ? `${result.usage.inputTokens} in / ${result.usage.outputTokens} out` : "unreported"}`);
      console.log(`cost:     ${result.costUsd !== undefined ? `$${result.costUsd.toFixed(6)}` : "unreported"}`);
      console.log(`duration: ${Math.round(result.durationMs)} ms`);
    } catch (error) {
      console.error(`\nrun failed: ${error instanceof RunError ? `${error.reason}: ${error.message}` : String(error)}`);
      return 1;
    }
    const pass = await testsPass(projectDir);
    console.log(`\ntests after: ${pass ? "pass" : "FAIL"}`);
    return pass ? 0 : 1;
  } finally {
    for (const cleanup of cleanups.reverse()) await cleanup();
  }
}

function print(event: AgentEvent): void {
  switch (event.type) {
    case "text-delta":
      process.stdout.write(event.text);
      break;
    case "tool-call":
      if (event.phase === "end") console.log(`\n  [tool] ${event.name} ${JSON.stringify(event.input)}`);
      break;
    case "tool-result":
      console.log(`  [result${event.isError ? " error" : ""}] ${event.output.split("\n")[0]?.slice(0, 100)}`);
      break;
    case "run-finished":
      console.log(`\n  [finished] ok=${event.ok}${event.message ? ` ${event.message}` : ""}`);
      break;
    default:
      break;
  }
}

process.exitCode = await main();
