import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Agent, type ApprovalRule } from "adaptor";
import { hostileAcp, text, type HostileStep } from "./hostile-agent/hostile.js";

// An ACP agent that starts a command on the host's terminal as a program and its arguments
// (`terminal/create` with `args`): a deny rule reads them as one command, shell wrappers included.

let agent: Agent | undefined;
let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "acp-argv-rules-"));
});
afterEach(async () => {
  await agent?.close();
  agent = undefined;
  rmSync(dir, { recursive: true, force: true });
});

const inNormal = { currentModeId: "normal", availableModes: [{ id: "normal", name: "normal" }] };

/** An agent whose prompt runs `command` with `args` through the host's terminal, then waits for it to exit. */
function terminalAgent(command: string, args: string[]): Agent {
  const steps: HostileStep[] = [
    { request: "terminal/create", params: { command, args, cwd: dir } },
    { request: "terminal/wait_for_exit", params: { terminalId: "terminal-1" } },
    text("done"),
    { respond: { stopReason: "end_turn" } },
  ];
  const driver = hostileAcp(
    { "session/new": [{ respond: { sessionId: "hostile-session", modes: inNormal } }], "session/prompt": [steps] },
    { askMode: "normal", sandboxModes: { read_only: "normal" }, cwd: dir },
  );
  return new Agent(driver);
}

describe("deny rules on an ACP terminal/create given as a program and arguments (hostile agent)", () => {
  it.each([
    ["sh -c", "sh", (file: string) => ["-c", `rm -f ${file}`], { commandPrefix: "rm" }],
    ["/bin/bash -lc", "/bin/bash", (file: string) => ["-lc", `rm -f ${file}`], { commandPrefix: "rm" }],
    ["env", "env", (file: string) => ["rm", "-f", file], { commandPrefix: "rm" }],
    ["the program, by an exact deny", "rm", (file: string) => ["-f", file], undefined],
  ])("%s: the command is denied without asking the handler and the file is kept", async (_name, command, args, condition) => {
    const victim = join(dir, "victim.txt");
    writeFileSync(victim, "keep");
    agent = terminalAgent(command, args(victim));
    const asked: unknown[] = [];
    const rule: ApprovalRule = condition ?? { command: `rm -f ${victim}` };
    await agent.run("go", {
      policy: { approvals: { permission: "ask", rules: [{ ...rule, outcome: "deny", reason: "no rm" }] } },
      onApproval: (request) => (asked.push(request.input), request.approve()),
    });
    expect(asked).toEqual([]);
    expect(existsSync(victim)).toBe(true);
  });

  it("another command is asked about, offered as the whole command (not the program alone)", async () => {
    agent = terminalAgent("sh", ["-c", "true"]);
    const suggestions: unknown[] = [];
    await agent.run("go", {
      policy: { approvals: { permission: "ask", rules: [{ commandPrefix: "rm", outcome: "deny" }] } },
      onApproval: (request) => (suggestions.push(request.suggestions), request.approve()),
    });
    expect(suggestions).toEqual([[{ toolName: "terminal/create", command: "sh -c true" }]]);
  });
});
