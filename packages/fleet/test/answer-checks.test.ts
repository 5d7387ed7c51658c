import { describe, expect, it } from "vitest";
import { Agent, ErrApprovalEditUnsupported, InvalidOptionError } from "adaptor";
import { isError } from "@adaptor/errors";
import { ApprovalNotPendingError } from "@adaptor/threadstore";
import type { StoredApprovalDecision } from "@adaptor/threadstore";
import type { Fleet, RecordedAgentEvent, RunHandle } from "@adaptor/fleet";
import { fakeCodex, fakeCodexSteps, fakeRun } from "./support/fake-codex.js";
import { onFakeCliFleet } from "./support/fake-cli-host.js";
import { freshSchema } from "./support/pg.js";

/** The id of the first approval the run asks (waits for it). */
async function askedId(handle: RunHandle): Promise<string> {
  for await (const { event } of handle.events())
    if (event.type === "approval-request") return ((event as RecordedAgentEvent).request as { id: string }).id;
  throw new Error("no approval-request event");
}

/** What the fake CLI echoed of the answers the worker sent it. */
async function echoedAnswers(handle: RunHandle): Promise<string[]> {
  const echoed: string[] = [];
  for await (const { event } of handle.events())
    if (event.type === "process" && typeof event.text === "string" && event.text.includes('"echo"')) echoed.push(event.text);
  return echoed;
}

/** A front and a back host on a fresh schema (the back one a worker), and a run asking `npm test` that replies `reply`. */
async function askingRun(fleetOf: (schema: string) => Promise<Fleet>, reply: string) {
  const schema = freshSchema("answer");
  const front = await fleetOf(schema);
  const back = await fleetOf(schema);
  await back.worker(new Agent(fakeCodex("unused")));
  const handle = await front.submit("run the tests", { runOptions: fakeRun(fakeCodexSteps(reply, { ask: "npm test" })) });
  return { front, handle, id: await askedId(handle) };
}

onFakeCliFleet("fleet answer checks", ({ host: fleetOf }) => {
  describe("fleet answer checks", () => {
    it("answer() refuses a malformed decision with the error an in-process answer gets, records nothing, and a corrected answer is applied", async () => {
      const { front, handle, id } = await askingRun(fleetOf, "after the approval");
      const refusals: [unknown, (error: unknown) => boolean][] = [
        [{ outcome: "aprove" }, (e) => e instanceof TypeError],
        ["approve", (e) => e instanceof TypeError],
        [{ outcome: "deny", reason: 5 }, (e) => e instanceof TypeError],
        [{ outcome: "approve", reasn: "x" }, (e) => e instanceof InvalidOptionError && e.field === "decision.reasn"],
        [{ outcome: "approve", updatedInput: "rm -rf x" }, (e) => e instanceof InvalidOptionError && e.field === "updatedInput"],
        [{ outcome: "approve", updatedInput: null }, (e) => e instanceof InvalidOptionError && e.field === "updatedInput"],
        // A codex command ask lists codex's decisions as its choices: anything else is refused.
        [
          { outcome: "answer", choice: "yes" },
          (e) => e instanceof InvalidOptionError && e.field === "choice" && e.subject === "fleet answer",
        ],
      ];
      for (const [decision, expected] of refusals) {
        const error = await front.answer(id, decision as StoredApprovalDecision).catch((e: unknown) => e);
        expect(expected(error), `${JSON.stringify(decision)}: ${String(error)}`).toBe(true);
        expect((await front.approval(id))?.status).toBe("pending");
      }
      await front.answer(id, { outcome: "approve" });
      expect((await handle.result()).text).toBe("after the approval");
    });

    it("an MCP elicitation answered from another host: content off its schema is refused as approve() refuses it (nothing recorded), valid content reaches the CLI", async () => {
      const schema = freshSchema("answer");
      const front = await fleetOf(schema);
      const back = await fleetOf(schema);
      await back.worker(new Agent(fakeCodex("unused")));
      const handle = await front.submit("who am I", {
        runOptions: { ...fakeRun(fakeCodexSteps("after the form", { elicit: true })), policy: { approvals: { elicitation: "ask" } } },
      });
      const id = await askedId(handle);
      expect((await front.approval(id))?.request).toMatchObject({ kind: "elicitation", details: { server: "crm", mode: "form" } });
      const error = await front.answer(id, { outcome: "approve", updatedInput: { name: 7 } }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(InvalidOptionError);
      expect(error).toMatchObject({ field: "updatedInput", subject: "fleet answer" });
      expect((await front.approval(id))?.status).toBe("pending");
      await front.answer(id, { outcome: "approve", updatedInput: { name: "Ada" } });
      expect((await handle.result()).text).toBe("after the form");
      expect((await echoedAnswers(handle))[0]).toContain('"action":"accept","content":{"name":"Ada"}');
    });

    it("answer() with one of the request's choices (the codex ask's decisions) is recorded and reaches the CLI as that decision", async () => {
      const { front, handle, id } = await askingRun(fleetOf, "after the answer");
      const request = (await front.approval(id))?.request as { choices?: { key: string }[] };
      expect(request.choices?.map((c) => c.key)).toEqual(["accept", "acceptForSession", "decline", "cancel"]);
      await front.answer(id, { outcome: "answer", choice: "acceptForSession" });
      expect(await front.approval(id)).toMatchObject({ status: "answered", decision: { outcome: "answer", choice: "acceptForSession" } });
      expect((await handle.result()).text).toBe("after the answer");
      expect((await echoedAnswers(handle))[0]).toContain('"decision":"acceptForSession"');
    });

    it("an edited input answered from another host to a request that cannot run one denies it and throws ErrApprovalEditUnsupported, as approve() does", async () => {
      const { front, handle, id } = await askingRun(fleetOf, "after the deny");
      const error = await front
        .answer(id, { outcome: "approve", updatedInput: { command: "npm test -- --bail" } })
        .catch((e: unknown) => e);
      expect(isError(error, ErrApprovalEditUnsupported)).toBe(true);
      // approval() reads the answer as recorded: the deny the edit became.
      expect(await front.approval(id)).toMatchObject({ status: "answered", decision: { outcome: "deny" } });
      expect((await handle.result()).text).toBe("after the deny");
      // The fake CLI echoed what the worker answered: a deny saying why.
      const echoed = await echoedAnswers(handle);
      expect(echoed).toHaveLength(1);
      expect(echoed[0]).toContain("cannot run");
    });

    it("answer() of a deny without a reason denies with the reason request.deny() gives, as an in-process deny() does", async () => {
      const { front, handle, id } = await askingRun(fleetOf, "after the deny");
      await front.answer(id, { outcome: "deny" });
      expect(await front.approval(id)).toMatchObject({ status: "answered", decision: { outcome: "deny" } });
      expect((await handle.result()).text).toBe("after the deny");
      const echoed = await echoedAnswers(handle);
      expect(echoed).toHaveLength(1);
      expect(echoed[0]).toContain("denied by host");
    });

    it("answer() to an id no run asked is refused unknown, whatever the decision's shape is valid", async () => {
      const front = await fleetOf(freshSchema("answer"));
      const refused = await front.answer("no-such-approval", { outcome: "approve" }).catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(ApprovalNotPendingError);
      expect((refused as ApprovalNotPendingError).status).toBe("unknown");
    });
  });
});
