// gemini-cli 0.61.0 reads a system settings file named by GEMINI_CLI_SYSTEM_SETTINGS_PATH whatever
// folder trust says: its `tools.discoveryCommand` runs a command no session mode governs. Under a
// confining policy the preset refuses the variable when the host sets it in `env` and removes it
// when it is only inherited from the host's environment (real binary, pinned). gemini-cli loads a
// system settings file only when it and every directory above it are owned by root and writable by
// no one else: the file is made under this package (not the world-writable temp directory), and
// the tests that need gemini-cli to load it run only where it would (as root, in a checkout no
// directory of which is writable by group or others: a clone under /tmp is not).
import { existsSync, statSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Agent } from "adaptor";
import { gemini } from "../src/index.js";
import {
  collect,
  expectConfiningPoliciesRefused,
  GEMINI_TEST_MODEL,
  geminiHarness,
  hostEnvForEachTest,
  policyNotices,
  type GeminiHarness,
} from "./support.js";

let h: GeminiHarness | undefined;
let dir: string;
let settings: string;
let marker: string;
beforeEach(async () => {
  dir = await mkdtemp(join(fileURLToPath(new URL(".", import.meta.url)), ".gemini-system-settings-"));
  settings = join(dir, "system-settings.json");
  marker = join(tmpdir(), `gemini-discovery-ran-${basename(dir)}`);
  // The discovery command prints the tools it declares: none.
  await writeFile(settings, JSON.stringify({ tools: { discoveryCommand: `sh -c 'touch ${marker}; echo []'` } }));
});
hostEnvForEachTest("GEMINI_CLI_SYSTEM_SETTINGS_PATH", () => settings);
afterEach(async () => {
  await h?.close();
  h = undefined;
  await rm(dir, { recursive: true, force: true });
  await rm(marker, { force: true });
});

/**
 * gemini-cli loads the test's system settings file only when it and every directory above it are
 * owned by root and writable by neither group nor others (its own check, read in its bundle).
 */
function geminiLoadsSystemSettingsHere(): boolean {
  if (process.getuid?.() !== 0) return false;
  for (let d = fileURLToPath(new URL(".", import.meta.url)); ; d = dirname(d)) {
    const stats = statSync(d);
    if (stats.uid !== 0 || (stats.mode & 0o022) !== 0) return false;
    if (dirname(d) === d) return true;
  }
}
const loadsSystemSettings = geminiLoadsSystemSettingsHere();

const INHERIT = { inheritEnv: ["GEMINI_CLI_SYSTEM_SETTINGS_PATH"] };

describe("gemini: GEMINI_CLI_SYSTEM_SETTINGS_PATH under a confining policy (real binary)", () => {
  it.runIf(loadsSystemSettings)(
    "inherited and no policy: gemini-cli loads the file and runs its discovery command (what the policy must stop)",
    async () => {
      h = await geminiHarness([], INHERIT);
      await h.agent.run("hello");
      expect(existsSync(marker)).toBe(true);
    },
  );

  it.runIf(loadsSystemSettings)("inherited, it is removed under read_only with a notice: the discovery command does not run", async () => {
    h = await geminiHarness([], INHERIT);
    const stream = h.agent.stream("hello", { policy: { sandbox: "read_only" } });
    const events = await collect(stream);
    const result = await stream.result();
    expect(policyNotices(events)).toEqual([
      expect.stringMatching(
        /^GEMINI_CLI_SYSTEM_SETTINGS_PATH \(inherited from the host's environment\) removed from Gemini CLI's environment/,
      ),
    ]);
    expect(result.enforcement).toEqual([expect.objectContaining({ field: "sandbox", value: "read_only", enforced: true })]);
    expect(existsSync(marker)).toBe(false);
  });

  it.runIf(loadsSystemSettings)('inherited, it is removed under "ask" too: the discovery command does not run', async () => {
    h = await geminiHarness([], INHERIT);
    await h.agent.run("hello", { policy: { approvals: { permission: "ask" } }, onApproval: (r) => r.deny("no") });
    expect(existsSync(marker)).toBe(false);
  });

  it("set by the host in env, read_only and ask are refused before launch", async () => {
    h = await geminiHarness();
    const env = { ...h.env.env, GEMINI_CLI_SYSTEM_SETTINGS_PATH: settings };
    const agent = new Agent(gemini({ cwd: h.env.workDir, env, inheritEnv: false, model: GEMINI_TEST_MODEL }));
    try {
      await expectConfiningPoliciesRefused(agent, "hello");
      expect(existsSync(marker)).toBe(false);
    } finally {
      await agent.close();
    }
  });
});
