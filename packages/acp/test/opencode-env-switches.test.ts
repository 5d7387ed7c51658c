// OpenCode 1.18.33 loads config from outside the working directory through its environment:
// OPENCODE_CONFIG_DIR (a config directory: its MCP servers start, its `plugin/` JavaScript runs in
// OpenCode's process),
// OPENCODE_CONFIG, OPENCODE_TEST_MANAGED_CONFIG_DIR, OPENCODE_PERMISSION. Under a confining policy
// the preset refuses them when the host sets them in `env` and removes them when they are only
// inherited from the host's environment (real binary, pinned).
import { existsSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { whenChatUserSays, type ChatScriptRule } from "@adaptor/testkit";
import { InvalidDriverConfigError, PolicyCapabilityUnsupportedError } from "adaptor";
import { opencode, opencodeAcpConfig, type OpencodeConfig } from "../src/index.js";
import { chatHarness, type ChatHarness } from "./chat-agent.js";
import { opencodeTestConfig } from "./opencode-env.js";
import { collect, expectConfiningPoliciesRefused, hostEnvForEachTest, policyNotices } from "./support.js";

const RULES: readonly ChatScriptRule[] = [{ when: whenChatUserSays("say hello"), reply: { text: "Hello from the scripted model." } }];

let h: ChatHarness | undefined;
let dir: string;
let marker: string;
beforeEach(async () => {
  // A config directory whose MCP server touches a marker when OpenCode starts it. (A plugin there,
  // JavaScript in OpenCode's process, runs too, but OpenCode then installs its plugin package from
  // the registry first and, offline, opens no session.)
  dir = await mkdtemp(join(tmpdir(), "opencode-config-dir-"));
  marker = join(dir, "mcp-ran");
  const mcp = { evil: { type: "local", command: ["sh", "-c", `touch ${marker}`] } };
  await writeFile(join(dir, "opencode.json"), JSON.stringify({ mcp }));
});
hostEnvForEachTest("OPENCODE_CONFIG_DIR", () => dir);
afterEach(async () => {
  await h?.close();
  h = undefined;
  await rm(dir, { recursive: true, force: true });
});

const harness = (config: (base: OpencodeConfig) => Partial<OpencodeConfig>): Promise<ChatHarness> =>
  chatHarness((home, server) => {
    const base = opencodeTestConfig(home, server);
    return opencode({ ...base, ...config(base) });
  }, RULES);

const INHERIT = (): Partial<OpencodeConfig> => ({ inheritEnv: ["OPENCODE_CONFIG_DIR"] });

describe("opencode: OPENCODE_CONFIG_DIR and its like under a confining policy (real binary)", () => {
  it("inherited and no policy: OpenCode starts the config directory's MCP server (what the policy must stop)", async () => {
    h = await harness(INHERIT);
    await h.agent.run("say hello");
    expect(existsSync(marker)).toBe(true);
  });

  it("inherited, it is removed under read_only with a notice: the MCP server does not start", async () => {
    h = await harness(INHERIT);
    const stream = h.agent.stream("say hello", { policy: { sandbox: "read_only" } });
    const events = await collect(stream);
    const result = await stream.result();
    expect(policyNotices(events)).toEqual([
      expect.stringMatching(/^OPENCODE_CONFIG_DIR \(inherited from the host's environment\) removed from OpenCode's environment/),
    ]);
    expect(result.text).toBe("Hello from the scripted model.");
    expect(existsSync(marker)).toBe(false);
  });

  it("set by the host in env, read_only and ask are refused before launch", async () => {
    h = await harness((base) => ({ env: { ...base.env, OPENCODE_CONFIG_DIR: dir } }));
    await expectConfiningPoliciesRefused(h.agent, "say hello");
    expect(existsSync(marker)).toBe(false);
  });

  it.each(["OPENCODE_CONFIG", "OPENCODE_TEST_MANAGED_CONFIG_DIR", "OPENCODE_PERMISSION"])(
    "%s set by the host in env: read_only is refused before launch",
    async (name) => {
      h = await harness((base) => ({ env: { ...base.env, [name]: name === "OPENCODE_PERMISSION" ? '{"*":"allow"}' : dir } }));
      const readOnly = await h.agent.run("say hello", { policy: { sandbox: "read_only" } }).catch((e: unknown) => e);
      expect(readOnly).toBeInstanceOf(PolicyCapabilityUnsupportedError);
    },
  );

  it("env.OPENCODE_CONFIG_CONTENT is refused: the preset's own config travels in it (use opencodeConfig)", () => {
    expect(() => opencodeAcpConfig({ env: { OPENCODE_CONFIG_CONTENT: "{}" } })).toThrow(InvalidDriverConfigError);
  });
});
