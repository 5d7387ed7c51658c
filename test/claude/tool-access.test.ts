// First-class tool access on the real claude binary (pinned 2.1.332): `allowedTools` (allow rules),
// `disallowedTools` (deny rules) and `additionalDirectories` (`--add-dir`), each shown on the agent.
import { existsSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ErrInvalidOption, ErrPolicyCapabilityUnsupported, isError, type ApprovalRequest } from "adaptor";
import { callThenReport, harness, type Harness } from "./support.js";

let h: Harness | undefined;
let work: string;
beforeEach(async () => {
  work = await mkdtemp(join(tmpdir(), "claude-tool-access-"));
});
afterEach(async () => {
  await h?.close();
  h = undefined;
  await rm(work, { recursive: true, force: true });
});

describe("claude tool access options (real binary)", { timeout: 120_000 }, () => {
  it("disallowedTools: a denied tool is not offered to the model; without it, it is", async () => {
    h = await harness();
    await h.agent.run("plain", {});
    await h.agent.run("denied", { disallowedTools: ["Bash", "WebFetch"] });
    const [plain, denied] = h.server.requests.filter((r) => r.view.firstUserText === "plain" || r.view.firstUserText === "denied");
    expect(plain!.view.toolNames).toContain("Bash");
    expect(denied!.view.firstUserText).toBe("denied");
    expect(denied!.view.toolNames).not.toContain("Bash");
    expect(denied!.view.toolNames).not.toContain("WebFetch");
    expect(denied!.view.toolNames).toContain("Read");
  });

  it("allowedTools: a call its scoped rule matches runs without the host being asked; without the rule, the host is asked", async () => {
    const asked: string[] = [];
    const onApproval = (request: ApprovalRequest): void => {
      asked.push(request.toolName ?? "");
      request.approve();
    };
    // A path inside the working directory: the CLI asks about paths outside it whatever the rules.
    h = await harness(
      callThenReport("RUN_ECHO", "Bash", { command: "touch marker.txt", description: "make a marker" }),
      {},
      { onApproval },
    );
    const marker = join(h.env.workDir, "marker.txt");
    const ruled = await h.agent.run("RUN_ECHO", { allowedTools: ["Bash(touch *)"] });
    expect(ruled.text).toMatch(/^Bash ok/);
    expect(asked).toEqual([]);
    expect(existsSync(marker)).toBe(true);
    await rm(marker);
    const asking = await h.agent.run("RUN_ECHO");
    expect(asking.text).toMatch(/^Bash ok/);
    expect(asked).toEqual(["Bash"]);
  });

  it("allowedTools under a policy where the host decides: refused before launch with ErrPolicyCapabilityUnsupported", async () => {
    h = await harness();
    for (const policy of [{ approvals: { permission: "ask" as const } }, { sandbox: "read_only" as const }]) {
      const err = await h.agent
        .run("never sent", { allowedTools: ["Bash"], policy, onApproval: (r) => r.approve() })
        .catch((e: unknown) => e);
      expect(isError(err, ErrPolicyCapabilityUnsupported)).toBe(true);
      expect((err as Error).message).toMatch(/allowedTools/);
    }
    expect(h.server.requests).toHaveLength(0);
  });

  it("additionalDirectories: under read_only a Read outside cwd is denied, and allowed in a directory the run adds", async () => {
    const outside = await mkdtemp(join(tmpdir(), "claude-extra-dir-"));
    try {
      const file = join(outside, "notes.txt");
      await writeFile(file, "EXTRA-DIR-CONTENT\n");
      h = await harness(callThenReport("READ_IT", "Read", { file_path: file }));
      const policy = { sandbox: "read_only" as const };
      const without = await h.agent.run("READ_IT", { policy });
      expect(without.text).toMatch(/^Read error/);
      const added = await h.agent.run("READ_IT", { policy, additionalDirectories: [outside] });
      expect(added.text).toMatch(/^Read ok: .*EXTRA-DIR-CONTENT/s);
    } finally {
      await rm(outside, { recursive: true, force: true });
    }
  });

  it("bad values are refused before launch: a relative directory, an empty rule", async () => {
    h = await harness();
    const relative = await h.agent.run("x", { additionalDirectories: ["rel/dir"] }).catch((e: unknown) => e);
    expect(isError(relative, ErrInvalidOption)).toBe(true);
    expect((relative as Error).message).toMatch(/additionalDirectories\[0\].*absolute/);
    const empty = await h.agent.run("x", { allowedTools: [""] }).catch((e: unknown) => e);
    expect(isError(empty, ErrInvalidOption)).toBe(true);
    expect(h.server.requests).toHaveLength(0);
    expect(existsSync(join(h.env.workDir, "rel"))).toBe(false);
  });
});
