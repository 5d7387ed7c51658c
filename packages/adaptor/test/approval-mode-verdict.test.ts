import { describe, expect, it } from "vitest";
import type { ApprovalMode, Driver, DriverResponse, DriverSink, TurnControl } from "@adaptor/driver";
import { approvalModeNotice } from "@adaptor/driver/kit";
import { Agent, RunError, type AgentEvent } from "adaptor";
import { scriptedDriver } from "./scripted-driver.js";

// stream.setApprovalMode and the check of unasked calls: each call is judged by the permission mode
// in effect on the CLI when it started, a switch taking effect when the driver reports it
// (`approval.mode`), or at once for a driver whose turn has no `setApprovalMode`.

/** Resolves with the next `permission` switch the host sends to the turn. */
type Switches = { next(): Promise<ApprovalMode>; offered: (permission: ApprovalMode) => Promise<boolean> };

function switches(): Switches {
  const waiting: ((permission: ApprovalMode) => void)[] = [];
  const sent: ApprovalMode[] = [];
  return {
    next: () => {
      const first = sent.shift();
      return first !== undefined ? Promise.resolve(first) : new Promise((resolve) => waiting.push(resolve));
    },
    offered: (permission) => {
      const waiter = waiting.shift();
      if (waiter) waiter(permission);
      else sent.push(permission);
      return new Promise<boolean>(() => undefined); // answered by the script (see `taken`)
    },
  };
}

/**
 * A driver declaring `approvalMode`: its turn reports calls A (before the host's switch), B (after
 * the host asked, before the CLI took it) and C (after), each returning unasked; `report` decides
 * what the driver says as the switch takes effect.
 */
function switchingDriver(
  report: (sink: DriverSink, permission: ApprovalMode, answer: (taken: boolean) => void) => Promise<void> | void,
  offersSwitch = true,
): Driver {
  const base = scriptedDriver(async () => ({}));
  const host = switches();
  return {
    ...base,
    descriptor: { ...base.descriptor, capabilities: { ...base.descriptor.capabilities, turnControl: { approvalMode: true } } },
    async run(request, sink): Promise<DriverResponse> {
      let taken!: (value: boolean) => void;
      const control: TurnControl = offersSwitch
        ? {
            setApprovalMode: (permission) => {
              void host.offered(permission);
              return new Promise<boolean>((resolve) => (taken = resolve));
            },
          }
        : {};
      sink.attachControl?.(control);
      sink.emit({ type: "tool-call", phase: "start", id: "A", name: "Bash" });
      const permission = offersSwitch ? await host.next() : await hostSwitched;
      sink.emit({ type: "tool-call", phase: "start", id: "B", name: "Bash" });
      await report(sink, permission, (value) => taken(value));
      sink.emit({ type: "tool-call", phase: "start", id: "C", name: "Bash" });
      for (const id of ["A", "B", "C"]) sink.emit({ type: "tool-result", id, name: "Bash", output: "ran", isError: false });
      taken?.(true);
      const enforcement = (
        request.policy?.approvals?.permission
          ? [
              {
                field: "approvals.permission",
                value: request.policy.approvals.permission,
                enforced: true,
                mechanisms: ["approval"],
                detail: "asks",
              },
            ]
          : []
      ) as DriverResponse["enforcement"];
      return { text: "done", transcript: [], raw: { stdout: "", stderr: "" }, enforcement };
    },
  };
}

/** For a driver without `setApprovalMode`: resolves once the host switched (the test sets it). */
let hostSwitched: Promise<ApprovalMode> = Promise.resolve("ask");

/** Runs `driver` under `launched`, switching to `to` once call A is reported; the verdict and the unasked notices. */
async function run(driver: Driver, launched: ApprovalMode, to: ApprovalMode): Promise<{ error: unknown; unasked: unknown[] }> {
  await using agent = new Agent(driver);
  const stream = agent.stream("go", { policy: { approvals: { permission: launched } } });
  const events: AgentEvent[] = [];
  for await (const event of stream) {
    events.push(event);
    if (event.type === "tool-call" && event.id === "A") void stream.setApprovalMode({ permission: to });
  }
  const error = await stream.result().then(
    () => undefined,
    (e: unknown) => e,
  );
  return {
    error,
    unasked: events
      .filter((e) => e.type === "notice" && e.kind === "approval.unasked")
      .map((e) => e.type === "notice" && e.data?.["toolCallId"]),
  };
}

describe("setApprovalMode and the check of unasked calls", () => {
  it("ask switched to auto_approve: calls started before the CLI took the switch are violations, the call after it is not", async () => {
    const { error, unasked } = await run(
      switchingDriver((sink, permission) => sink.emit(approvalModeNotice(permission))),
      "ask",
      "auto_approve",
    );
    expect(unasked).toEqual(["A", "B"]);
    expect(error).toBeInstanceOf(RunError);
    expect(error).toMatchObject({ reason: "policy_violation", details: { fields: ["approvals.permission"], toolCallIds: ["A", "B"] } });
  });

  it("auto_approve switched to ask: only the call started after the CLI took the switch is a violation, named with the mode it broke", async () => {
    const { error, unasked } = await run(
      switchingDriver((sink, permission) => sink.emit(approvalModeNotice(permission))),
      "auto_approve",
      "ask",
    );
    expect(unasked).toEqual(["C"]);
    expect(error).toMatchObject({ reason: "policy_violation", details: { toolCallIds: ["C"] } });
    expect((error as RunError).message).toContain('under approvals.permission "ask", set during the run');
    expect((error as RunError).result.enforcement.find((e) => e.field === "approvals.permission")).toMatchObject({
      value: "auto_approve",
      enforced: false,
    });
  });

  it("a driver's approval.mode naming a mode the host did not ask for changes nothing", async () => {
    const { error, unasked } = await run(
      switchingDriver((sink) => sink.emit(approvalModeNotice("auto_approve"))),
      "auto_deny",
      "ask",
    );
    expect(unasked).toEqual(["A", "B", "C"]);
    expect(error).toMatchObject({ reason: "policy_violation" });
  });

  it("a driver that answers the switch without an approval.mode notice: the switch holds from its answer", async () => {
    const answerOnly = switchingDriver(async (_sink, _permission, answer) => {
      answer(true);
      await new Promise<void>((resolve) => setImmediate(resolve));
    });
    const { error, unasked } = await run(answerOnly, "auto_approve", "ask");
    expect(unasked).toEqual(["C"]);
    expect(error).toMatchObject({ reason: "policy_violation", details: { toolCallIds: ["C"] } });
  });

  it("a driver whose turn has no setApprovalMode: the switch takes effect for the check as the host makes it", async () => {
    let switched!: (permission: ApprovalMode) => void;
    hostSwitched = new Promise((resolve) => (switched = resolve));
    const driver = switchingDriver(() => undefined, false);
    await using agent = new Agent(driver);
    const stream = agent.stream("go", { policy: { approvals: { permission: "ask" } } });
    const events: AgentEvent[] = [];
    for await (const event of stream) {
      events.push(event);
      if (event.type === "tool-call" && event.id === "A") {
        await expect(stream.setApprovalMode({ permission: "auto_approve" })).resolves.toBe(true);
        switched("auto_approve");
      }
    }
    expect((await stream.result().catch((e: unknown) => e)) as RunError).toMatchObject({
      reason: "policy_violation",
      details: { toolCallIds: ["A"] },
    });
    expect(events.filter((e) => e.type === "notice" && e.kind === "approval.unasked")).toHaveLength(1);
  });
});
