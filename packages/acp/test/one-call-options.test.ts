import { afterEach, describe, expect, it } from "vitest";
import { InvalidOptionError } from "@adaptor/errors";
import { Agent, type AgentEvent, type ApprovalRequest, type RunOptions } from "adaptor";
import { hostileAcp, text, type HostileStep } from "./hostile-agent/hostile.js";
import { policyNotices } from "./support.js";

// An agent's permission options that answer later calls too (ACP kinds allow_always and
// reject_always) under a policy that has every acting call asked, against the scripted agent.

let agent: Agent | undefined;
afterEach(async () => {
  await agent?.close();
  agent = undefined;
});

const ALL_OPTIONS = [
  { optionId: "always", name: "Always Allow", kind: "allow_always" },
  { optionId: "once", name: "Allow", kind: "allow_once" },
  { optionId: "no", name: "Reject", kind: "reject_once" },
  { optionId: "never", name: "Never", kind: "reject_always" },
];
const done: HostileStep = { respond: { stopReason: "end_turn" } };
const askWith = (options: readonly unknown[], kind: string): HostileStep => ({
  permission: { toolCallId: "c1", title: "touch x", kind, rawInput: { command: "touch x" } },
  options,
  echo: true,
});

/** One turn whose agent asks once with `options` (a read under read_only, else an execute); the handler's answer is `decide`. */
async function turn(
  options: readonly unknown[],
  policy: RunOptions["policy"],
  decide: (request: ApprovalRequest) => void,
): Promise<{ events: AgentEvent[]; answered: unknown; error: unknown }> {
  const driver = hostileAcp(
    {
      "session/new": [
        { respond: { sessionId: "s", modes: { currentModeId: "default", availableModes: [{ id: "default", name: "default" }] } } },
      ],
      "session/prompt": [[askWith(options, policy?.sandbox === "read_only" ? "read" : "execute"), text("ok"), done]],
    },
    { askMode: "default" },
  );
  agent = new Agent(driver);
  const stream = agent.stream("go", { policy, onApproval: decide });
  const events: AgentEvent[] = [];
  for await (const event of stream) events.push(event);
  const error = await stream.result().then(
    () => undefined,
    (e: unknown) => e,
  );
  const line = events.flatMap((e) => (e.type === "process" && e.kind === "stderr" ? [e.text] : [])).find((t) => t?.includes("answered"));
  return { events, answered: line === undefined ? undefined : (JSON.parse(line) as { answered: unknown }).answered, error };
}

describe("options that answer later calls too", () => {
  for (const policy of [{ approvals: { permission: "ask" } }, { sandbox: "read_only", approvals: { permission: "ask" } }] as const)
    it(`are left out of the choices under ${JSON.stringify(policy)}; answering one throws InvalidOptionError and nothing reaches the agent`, async () => {
      const choices: string[][] = [];
      const refused: unknown[] = [];
      const run = await turn(ALL_OPTIONS, policy, (request) => {
        choices.push((request.choices ?? []).map((choice) => choice.key));
        for (const key of ["always", "never"])
          try {
            request.answer(key);
          } catch (error) {
            refused.push(error);
          }
        request.answer("no");
      });
      expect(run.error).toBeUndefined();
      expect(choices).toEqual([["once", "no"]]);
      expect(refused.map((error) => error instanceof InvalidOptionError)).toEqual([true, true]);
      expect(run.answered).toEqual({ outcome: { outcome: "selected", optionId: "no" } });
    });

  it("under ask, approve() with only allow_always offered does not select it: the call is refused with a policy notice", async () => {
    const run = await turn([ALL_OPTIONS[0], ALL_OPTIONS[2]], { approvals: { permission: "ask" } }, (request) => request.approve());
    expect(run.answered).toEqual({ outcome: { outcome: "cancelled" } });
    expect(policyNotices(run.events)).toEqual([
      "not run: touch x: the agent offers no option to allow this one call (only one that also allows later calls unasked)",
    ]);
  });

  it("without a confining policy they are offered and answer() passes them to the agent", async () => {
    const choices: string[][] = [];
    const run = await turn(ALL_OPTIONS, undefined, (request) => {
      choices.push((request.choices ?? []).map((choice) => choice.key));
      request.answer("always");
    });
    expect(choices).toEqual([["always", "once", "no", "never"]]);
    expect(run.answered).toEqual({ outcome: { outcome: "selected", optionId: "always" } });
  });
});
