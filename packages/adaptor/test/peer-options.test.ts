// Every option of the Claude Agent SDK and the Codex SDK is answered: taken as it is, or refused
// before launch with what to write here, and that hint says what docs/migrating.md's row says.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { PEER_OPTIONS, type PeerSdk } from "@adaptor/driver";
import { Agent, InvalidOptionError, type RunOptions } from "../src/index.js";
import { checkAgentOptions, checkRunOptions } from "../src/options/check-input.js";
import { RUN_OPTIONS_SHAPE } from "../src/options/option-shapes.js";
import { scriptedDriver } from "./scripted-driver.js";

/** The fields of the Claude Agent SDK's `Options` (@anthropic-ai/claude-agent-sdk 0.2.83 and 0.3.332, sdk.d.ts). */
// prettier-ignore
const CLAUDE_AGENT_SDK_OPTIONS = [
  "abortController", "additionalDirectories", "agent", "agents", "allowedTools", "canUseTool", "continue", "cwd",
  "disallowedTools", "tools", "env", "executable", "executableArgs", "extraArgs", "fallbackModel",
  "enableFileCheckpointing", "toolConfig", "forkSession", "betas", "hooks", "onElicitation", "persistSession",
  "includePartialMessages", "thinking", "effort", "maxThinkingTokens", "maxTurns", "maxBudgetUsd", "mcpServers",
  "model", "outputFormat", "pathToClaudeCodeExecutable", "permissionMode", "allowDangerouslySkipPermissions",
  "permissionPromptToolName", "plugins", "promptSuggestions", "agentProgressSummaries", "resume", "sessionId",
  "resumeSessionAt", "sandbox", "settings", "settingSources", "debug", "debugFile", "stderr", "strictMcpConfig",
  "systemPrompt", "spawnClaudeCodeProcess",
  // Added by 0.3.332 (Claude Code 2.1.332).
  "title", "taskBudget", "includeHookEvents", "forwardSubagentText", "sessionStore", "sessionStoreFlush", "loadTimeoutMs",
  "toolAliases", "onUserDialog", "supportedDialogKinds", "planModeInstructions", "managedSettings", "permissionPrompts",
  "projectConfigRoot", "resumeDropsTurn", "mcpServersDelivery", "pluginDelivery", "verbatimPrompts", "perTaskStopAffordance",
] as const;

/** The fields of the Codex SDK's `CodexOptions`, `ThreadOptions` and `TurnOptions` (@openai/codex-sdk). */
// prettier-ignore
const CODEX_SDK_OPTIONS = [
  "codexPathOverride", "baseUrl", "apiKey", "config", "env",
  "model", "sandboxMode", "workingDirectory", "skipGitRepoCheck", "modelReasoningEffort", "networkAccessEnabled",
  "webSearchMode", "webSearchEnabled", "approvalPolicy", "additionalDirectories", "collaborationMode",
  "outputSchema", "signal", "onRequestUserInput",
] as const;

/** Names of earlier versions of the peer SDKs that are still answered. */
const EARLIER_OPTIONS = ["appendSystemPrompt"];

const PEERS: readonly (readonly [PeerSdk, readonly string[]])[] = [
  ["Claude Agent SDK", CLAUDE_AGENT_SDK_OPTIONS],
  ["Codex SDK", CODEX_SDK_OPTIONS],
];

const okDriver = () => scriptedDriver(async () => ({ text: "ok" }));

function refusal(check: () => unknown): InvalidOptionError {
  try {
    check();
  } catch (error) {
    if (error instanceof InvalidOptionError) return error;
    throw error;
  }
  throw new Error("expected an InvalidOptionError");
}

/** The rows of docs/migrating.md's table for `sdk`: the peer's cell and adaptor's. */
function migratingRows(sdk: PeerSdk): { peer: string; adaptor: string }[] {
  const doc = readFileSync(new URL("../../../docs/migrating.md", import.meta.url), "utf8");
  const section = doc.split(/^## /m).find((part) => part.startsWith(`${sdk} → adaptor`));
  if (section === undefined) throw new Error(`docs/migrating.md has no section for the ${sdk}`);
  return section
    .split("\n")
    .filter((line) => line.startsWith("| ") && !line.startsWith(`| ${sdk} |`))
    .map((line) => line.split(/(?<!\\)\|/).map((cell) => cell.trim()))
    .map((cells) => ({ peer: cells[1]!, adaptor: cells.slice(2).join(" | ") }));
}

/** The rows whose peer cell names `name` in code (`options.name`, `name`, `new Codex({ name })`). */
function rowsNaming(sdk: PeerSdk, name: string): { peer: string; adaptor: string }[] {
  const word = new RegExp(`(^|[^A-Za-z0-9_])${name}([^A-Za-z0-9_]|$)`);
  return migratingRows(sdk).filter((row) => [...row.peer.matchAll(/`([^`]+)`/g)].some((code) => word.test(code[1]!)));
}

describe("peer SDK options", () => {
  describe.each(PEERS)("the %s's options", (sdk, names) => {
    it.each(names)("%s is taken as a run option or refused with what to write here", (name) => {
      if (Object.hasOwn(RUN_OPTIONS_SHAPE, name)) {
        expect(PEER_OPTIONS[name]).toBeUndefined();
        return;
      }
      const peer = PEER_OPTIONS[name];
      expect(peer, `${name} has no hint`).toBeDefined();
      expect(peer!.sdk).toBe(sdk);
      const error = refusal(() => checkRunOptions({ [name]: 1 }));
      expect(error).toMatchObject({ subject: "run options", field: name, suggestion: undefined });
      expect(error.message.startsWith(`run options: ${name} is not a known option; `)).toBe(true);
      expect(error.message.endsWith(`; ${peer!.hint}`)).toBe(true);
    });

    it.each(names)("%s is taken as an Agent option or refused with what to write or where it belongs", (name) => {
      const peer = PEER_OPTIONS[name];
      let error: InvalidOptionError | undefined;
      try {
        // The Agent has host tools under the name tools: the peer's value (built-in names) is answered.
        checkAgentOptions({ [name]: peer === undefined ? undefined : name === "tools" ? ["Read"] : 1 });
      } catch (caught) {
        error = caught as InvalidOptionError;
      }
      if (peer !== undefined) expect(error?.message).toContain(peer.hint);
      else if (error !== undefined) expect(error.message).toContain("it is a run option (agent.run(prompt, { ... }))");
    });
  });

  it("every hint is of an option of the peer SDKs (none is left over from a name they do not have)", () => {
    const known = new Set<string>([...CLAUDE_AGENT_SDK_OPTIONS, ...CODEX_SDK_OPTIONS, ...EARLIER_OPTIONS]);
    expect(Object.keys(PEER_OPTIONS).filter((name) => !known.has(name))).toEqual([]);
  });

  it.each(Object.entries(PEER_OPTIONS))("%s: docs/migrating.md has its row, naming what its hint names", (name, peer) => {
    const rows = rowsNaming(peer.sdk, name);
    expect(rows, `docs/migrating.md has no ${peer.sdk} row for ${name}`).not.toEqual([]);
    expect(peer.uses).not.toEqual([]);
    for (const use of peer.uses) {
      expect(peer.hint, `the hint of ${name}`).toContain(use === "none" ? "none here" : use);
      expect(
        rows.some((row) => row.adaptor.includes(use === "none" ? "none:" : use)),
        `the row of ${name} names ${use}`,
      ).toBe(true);
    }
  });

  it("the peer's tools (built-in names) is refused as a run option with the built-ins hint, not only as an Agent option", async () => {
    const driver = okDriver();
    const stream = new Agent(driver).stream("p", { tools: ["Read"] } as unknown as RunOptions);
    const error = await stream.result().then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(InvalidOptionError);
    expect((error as Error).message).toBe(
      `run options: tools is not a known option; it is an Agent option (new Agent(driver, { ... })); ${PEER_OPTIONS.tools!.hint}`,
    );
    expect(driver.requests).toHaveLength(0);
  });

  it.each([
    [["Read", "Grep"], "tools[0]", "is a built-in tool's name: here tools are host tools (defineTool); "],
    [{ type: "preset", preset: "claude_code" }, "tools", "is a preset of built-in tools: here tools are host tools (defineTool); "],
  ])("the peer's tools %j given to the Agent is refused at once with the built-ins hint", (tools, field, reason) => {
    const error = refusal(() => new Agent(okDriver(), { tools } as never));
    expect(error).toMatchObject({ subject: "Agent options", field, reason: `${reason}${PEER_OPTIONS.tools!.hint}` });
  });

  it.each([
    ["stderr", () => undefined],
    ["strictMcpConfig", true],
    ["plugins", []],
    ["executable", "node"],
    ["networkAccessEnabled", true],
  ])("the peer option %s is refused through the run's result before the driver is asked", async (name, value) => {
    const driver = okDriver();
    const error = await new Agent(driver)
      .stream("p", { [name]: value } as RunOptions)
      .result()
      .then(
        () => undefined,
        (caught: unknown) => caught,
      );
    expect((error as Error).message).toBe(`run options: ${name} is not a known option; ${PEER_OPTIONS[name]!.hint}`);
    expect(driver.requests).toHaveLength(0);
  });

  it.each([
    ["run options", () => checkRunOptions({ images: [] })],
    ["Agent options", () => checkAgentOptions({ images: [] })],
  ])("images (the image list other SDKs and CLIs take beside the prompt) is refused as %s with where images go here", (subject, check) => {
    const error = refusal(check);
    expect(error).toMatchObject({ subject, field: "images" });
    expect(error.message).toContain('images are prompt parts here: agent.run(["What is this?", { type: "image", path }])');
  });
});
