import { randomUUID } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { Agent } from "adaptor";
import { hostileAcp, text } from "./hostile-agent/hostile.js";

/** Live (non-zombie) processes with `marker` as one whole argument. */
function withArgument(marker: string): number[] {
  const found: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (!readFileSync(`/proc/${name}/cmdline`, "latin1").split("\0").includes(marker)) continue;
      const stat = readFileSync(`/proc/${name}/stat`, "latin1");
      if (!stat.slice(stat.lastIndexOf(")") + 2).startsWith("Z")) found.push(Number(name));
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

/**
 * A job started with an empty environment (no tag) whose parent exits at once; once out of the
 * agent's tree, its fork moves to a process group of its own, still in the agent's session, and
 * closes its stdout (the agent's step waits for that) before it sleeps.
 */
const SESSION_JOB = `my $parent = $$; exit if fork; select(undef, undef, undef, 0.05) while getppid() == $parent; setpgrp(0, 0); close STDOUT; sleep 300`;

describe.skipIf(process.platform !== "linux")("an ACP agent's processes (hostile agent)", () => {
  it("a job without a tag that left the agent's tree into a process group of its own in the agent's session: nothing is left after close()", async () => {
    const marker = `adaptor-marker-${randomUUID()}`;
    const agent = new Agent(
      hostileAcp({
        "session/prompt": [
          [
            { command: ["/usr/bin/env", "-i", "perl", "-e", SESSION_JOB, marker] },
            text("started"),
            { respond: { stopReason: "end_turn" } },
          ],
        ],
      }),
    );
    try {
      const result = await agent.run("go");
      expect(result.text).toBe("started");
      await agent.close();
      expect(withArgument(marker)).toEqual([]);
    } finally {
      for (const pid of withArgument(marker)) process.kill(pid, "SIGKILL");
    }
  });
});
