import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { MemoryThreadStore } from "@adaptor/threadstore";
import { codexTestEnv, startOpenAIServer } from "@adaptor/testkit";
import { Agent, ErrThreadIncompatible, isError } from "adaptor";
import { codex } from "@adaptor/codex";
import { closedAfterEach } from "../support/closed-after-each.js";

// A thread's workspace is the directory codex runs in: the driver's `cwd` when the run and the
// Agent give none. Two Agents sharing one store and one key, whose drivers run in different
// folders, never continue each other's conversation (on either transport).

const open = closedAfterEach();

describe.each(["app-server", "exec"] as const)("codex (%s) thread workspace from the driver's cwd", (transport) => {
  it(
    "an Agent whose driver runs in another folder is refused the thread (ErrThreadIncompatible), no model call",
    { timeout: 120_000 },
    async () => {
      const server = await startOpenAIServer({ rules: [{ name: "any", when: () => true, reply: { text: "noted" } }] });
      open.push(server);
      const tk = await codexTestEnv({ server });
      open.push({ close: () => tk.cleanup() });
      const wsA = join(tk.workDir, "alice");
      const wsB = join(tk.workDir, "bob");
      mkdirSync(wsA);
      mkdirSync(wsB);
      const store = new MemoryThreadStore();
      const agentIn = (cwd: string): Agent => {
        const agent = new Agent(codex({ cwd, env: tk.env, inheritEnv: false, transport }), { threadStore: store });
        open.push(agent);
        return agent;
      };
      const alice = agentIn(wsA);
      await alice.thread("chat-1").run("alice: my PIN is 4321");
      await alice.close(); // codex app-server keeps one writer per thread: alice's process lets it go
      const answered = server.requests.filter((r) => r.rule === "any").length;
      const err = await agentIn(wsB)
        .thread("chat-1")
        .run("bob: what do you see?")
        .then(
          () => undefined,
          (e: unknown) => e,
        );
      expect(isError(err, ErrThreadIncompatible)).toBe(true);
      expect(server.requests.filter((r) => r.rule === "any").length).toBe(answered);
      const again = await agentIn(wsA).thread("chat-1").run("alice again");
      expect(again.text).toBe("noted");
    },
  );
});
