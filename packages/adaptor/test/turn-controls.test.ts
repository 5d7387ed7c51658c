import { describe, expect, it } from "vitest";
import type { Driver, DriverResponse, TurnControl } from "@adaptor/driver";
import { DriverError, ErrCode } from "@adaptor/errors";
import {
  Agent,
  ErrFeatureUnsupported,
  ErrHumanDecisionModeUnsupported,
  FeatureUnsupportedError,
  InvalidOptionError,
  isError,
} from "adaptor";
import { MemoryThreadStore } from "@adaptor/threadstore";
import { scriptedDriver, untilAborted } from "./scripted-driver.js";

// The stream's turn controls (interrupt, send, setModel) against a scripted driver: what reaches
// the driver, when, and the verdict and checkpoint of an interrupted turn.

/** A 1×1 PNG. */
const PNG = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==", "base64");

/** A driver declaring `turnControl`, whose turn attaches `control` and ends when `done` settles. */
function controllable(turnControl: { interrupt?: boolean; send?: boolean; sendImages?: boolean; setModel?: boolean }) {
  const calls: string[] = [];
  let interrupted!: () => void;
  const stop = new Promise<void>((resolve) => (interrupted = resolve));
  let attached!: () => void;
  const ready = new Promise<void>((resolve) => (attached = resolve));
  const base = scriptedDriver(async () => ({}));
  const driver: Driver = {
    ...base,
    descriptor: {
      ...base.descriptor,
      capabilities: { ...base.descriptor.capabilities, sessions: { resume: true, fork: false }, turnControl },
    },
    async run(_request, sink, signal): Promise<DriverResponse> {
      await Promise.race([ready, untilAborted(signal)]); // the test decides when the turn can take requests
      const control: TurnControl = {
        interrupt: () => {
          calls.push("interrupt");
          interrupted();
          return Promise.resolve();
        },
        send: (text, images) => {
          calls.push(
            `send ${text}${images ? ` + ${images.map((image) => `${image.mimeType} ${image.data.byteLength} bytes`).join(", ")}` : ""}`,
          );
          return Promise.resolve();
        },
        setModel: (model) => {
          calls.push(`setModel ${model}`);
          return Promise.resolve();
        },
      };
      const detach = sink.attachControl?.(control);
      try {
        await Promise.race([stop, untilAborted(signal)]);
      } finally {
        detach?.();
      }
      return { text: "partial", transcript: [], raw: { stdout: "", stderr: "" }, interrupted: true, checkpoint: { resumeId: "s1" } };
    },
  };
  return { driver, calls, attach: () => attached() };
}

describe("stream turn controls", () => {
  it("a request made before the turn can take it waits for it; interrupt resolves a Result with status interrupted", async () => {
    const { driver, calls, attach } = controllable({ interrupt: true, send: true, setModel: true });
    await using agent = new Agent(driver);
    const stream = agent.stream("go");
    const sent = stream.send("more");
    const model = stream.setModel("m2");
    attach();
    await expect(sent).resolves.toBe(true);
    await expect(model).resolves.toBe(true);
    await expect(stream.interrupt()).resolves.toBe(true);
    const result = await stream.result();
    expect(result.status).toBe("interrupted");
    expect(result.text).toBe("partial");
    expect(calls).toEqual(["send more", "setModel m2", "interrupt"]);
    const events = [];
    for await (const event of stream) events.push(event);
    expect(events.at(-1)).toMatchObject({ type: "run-finished", ok: true, interrupted: true });
    // After the run: nothing reaches the driver any more.
    await expect(stream.send("late")).resolves.toBe(false);
    expect(calls).toHaveLength(3);
  });

  it("an interrupted thread turn is committed as the thread's checkpoint", async () => {
    const { driver, attach } = controllable({ interrupt: true });
    const store = new MemoryThreadStore();
    await using agent = new Agent(driver, { threadStore: store });
    const stream = agent.thread("chat").stream("go");
    attach();
    await stream.interrupt();
    await stream.result();
    expect((await store.resolve({ key: "chat" }))?.checkpoint.resumeId).toBe("s1");
  });

  it("a request the driver does not declare is refused with FeatureUnsupportedError, whatever the turn does", async () => {
    const { driver, calls, attach } = controllable({});
    await using agent = new Agent(driver);
    const stream = agent.stream("go");
    for (const [name, call] of [
      ["interrupt", () => stream.interrupt()],
      ["send", () => stream.send("more")],
      ["setModel", () => stream.setModel("m2")],
      ["setApprovalMode", () => stream.setApprovalMode({ permission: "auto_approve" })],
    ] as const) {
      const error = await call().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(FeatureUnsupportedError);
      expect(isError(error, ErrFeatureUnsupported)).toBe(true);
      expect(error).toMatchObject({ driver: "scripted", feature: name });
    }
    expect(calls).toEqual([]);
    attach();
    stream.cancel();
    await expect(stream.result()).rejects.toThrow();
  });

  it("send and setModel refuse empty text with TypeError; a request pending when the run ends resolves false", async () => {
    const { driver, calls } = controllable({ send: true, setModel: true });
    await using agent = new Agent(driver);
    const stream = agent.stream("go");
    await expect(stream.send("  ")).rejects.toBeInstanceOf(TypeError);
    await expect(stream.setModel("")).rejects.toBeInstanceOf(TypeError);
    const pending = stream.send("never attached");
    stream.cancel();
    await expect(pending).resolves.toBe(false);
    await expect(stream.result()).rejects.toThrow();
    expect(calls).toEqual([]);
  });

  it("a request that fails because the CLI is gone resolves false; one the CLI refused rejects with its error", async () => {
    const gone = (op: string, code: ErrCode) => Promise.reject(new DriverError({ op, device: "scripted", code, cause: "the CLI exited" }));
    const base = scriptedDriver(async () => ({}));
    const driver: Driver = {
      ...base,
      descriptor: {
        ...base.descriptor,
        capabilities: { ...base.descriptor.capabilities, turnControl: { interrupt: true, send: true, setModel: true } },
      },
      async run(_request, sink, signal): Promise<DriverResponse> {
        const detach = sink.attachControl?.({
          interrupt: () => gone("turn/interrupt", ErrCode.DeviceDisconnected),
          send: () => gone("write", ErrCode.BrokenPipe),
          setModel: () => gone("set_model", ErrCode.Driver),
        });
        try {
          return await untilAborted(signal);
        } finally {
          detach?.();
        }
      },
    };
    await using agent = new Agent(driver);
    const stream = agent.stream("go");
    await expect(stream.interrupt()).resolves.toBe(false);
    await expect(stream.send("more")).resolves.toBe(false);
    await expect(stream.setModel("m2")).rejects.toMatchObject({ code: ErrCode.Driver, op: "set_model" });
    stream.cancel();
    await expect(stream.result()).rejects.toThrow();
  });

  it("send takes a prompt's parts: its images are read and checked as a prompt's, and reach the driver with the text", async () => {
    const { driver, calls, attach } = controllable({ interrupt: true, send: true, sendImages: true });
    await using agent = new Agent(driver);
    const stream = agent.stream("go");
    const sent = stream.send([{ type: "image", data: PNG }, "look", { type: "text", text: "closely" }]);
    attach();
    await expect(sent).resolves.toBe(true);
    await expect(stream.send([{ type: "image", url: `data:image/png;base64,${PNG.toString("base64")}` }])).resolves.toBe(true);
    const notImage = await stream.send([{ type: "image", data: new Uint8Array([1, 2, 3]) }, "look"]).catch((e: unknown) => e);
    expect(notImage).toBeInstanceOf(InvalidOptionError);
    expect(notImage).toMatchObject({ field: "prompt[0]" });
    await expect(stream.send([])).rejects.toBeInstanceOf(InvalidOptionError);
    await expect(stream.send(["  "])).rejects.toBeInstanceOf(TypeError);
    await stream.interrupt();
    await stream.result();
    expect(calls).toEqual([
      `send look\n\nclosely + image/png ${PNG.byteLength} bytes`,
      `send  + image/png ${PNG.byteLength} bytes`,
      "interrupt",
    ]);
  });

  it("send with an image on a driver that cannot give one to a running turn is refused before the image is read", async () => {
    const { driver, calls, attach } = controllable({ send: true });
    await using agent = new Agent(driver);
    const stream = agent.stream("go");
    // A path that does not exist: reading it would fail with InvalidOptionError instead.
    const error = await stream.send([{ type: "image", path: "/nonexistent/picture.png" }, "look"]).catch((e: unknown) => e);
    expect(isError(error, ErrFeatureUnsupported)).toBe(true);
    expect(error).toMatchObject({ driver: "scripted", feature: "images" });
    attach();
    await expect(stream.send(["text only"])).resolves.toBe(true);
    expect(calls).toEqual(["send text only"]);
    stream.cancel();
    await expect(stream.result()).rejects.toThrow();
  });

  it("setApprovalMode decides the asks after it; a mode the driver lacks is refused with HumanDecisionModeUnsupportedError", async () => {
    const base = scriptedDriver(async (_request, sink) => {
      const first = await sink.requestApproval({ kind: "permission", title: "first", toolName: "Bash" });
      const second = await sink.requestApproval({ kind: "permission", title: "second", toolName: "Bash" });
      return { text: `${first.outcome} ${second.outcome}` };
    });
    const driver: Driver = {
      ...base,
      descriptor: {
        ...base.descriptor,
        capabilities: {
          ...base.descriptor.capabilities,
          approvals: { ...base.descriptor.capabilities.approvals, question: ["inherit", "ask"] },
          turnControl: { approvalMode: true },
        },
      },
    };
    await using agent = new Agent(driver);
    const stream = agent.stream("go", { policy: { approvals: { permission: "ask" } } });
    const refused = await stream.setApprovalMode({ question: "auto_deny" }).catch((e: unknown) => e);
    expect(isError(refused, ErrHumanDecisionModeUnsupported)).toBe(true);
    await expect(stream.setApprovalMode({ nonsense: "ask" } as never)).rejects.toBeInstanceOf(TypeError);
    const named = await stream.setApprovalMode("acceptEdits" as never).catch((e: unknown) => e);
    expect(named).toBeInstanceOf(TypeError);
    expect((named as Error).message).toContain(
      'modes must be an object of approval kinds (permission, plan_review, question, elicitation) to modes, e.g. { permission: "auto_approve" }, got string',
    );
    expect((named as Error).message).toContain('"acceptEdits"');
    await expect(stream.setApprovalMode(null as never)).rejects.toThrow("got null");
    const asked: string[] = [];
    for await (const event of stream) {
      if (event.type === "approval-request") {
        asked.push(event.request.title);
        await expect(stream.setApprovalMode({ permission: "auto_deny" })).resolves.toBe(true);
        event.request.approve();
      }
    }
    expect(asked).toEqual(["first"]);
    expect((await stream.result()).text).toBe("approve deny");
    await expect(stream.setApprovalMode({ permission: "ask" })).resolves.toBe(false);
  });

  it("a setApprovalMode the CLI refuses rejects with its DriverError and leaves the run's asks under the modes before it", async () => {
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let attached!: () => void;
    const running = new Promise<void>((resolve) => (attached = resolve));
    const base = scriptedDriver(async (_request, sink) => {
      const detach = sink.attachControl?.({
        setApprovalMode: () =>
          Promise.reject(new DriverError({ op: "set_permission_mode", device: "scripted", code: ErrCode.Driver, cause: "refused" })),
      });
      attached();
      try {
        await released;
        const decision = await sink.requestApproval({ kind: "permission", title: "after", toolName: "Bash" });
        return { text: decision.outcome };
      } finally {
        detach?.();
      }
    });
    const driver: Driver = {
      ...base,
      descriptor: { ...base.descriptor, capabilities: { ...base.descriptor.capabilities, turnControl: { approvalMode: true } } },
    };
    await using agent = new Agent(driver);
    const stream = agent.stream("go", { policy: { approvals: { permission: "ask", question: "ask" } } });
    await running;
    await expect(stream.setApprovalMode({ permission: "auto_approve", question: "auto_deny" })).rejects.toMatchObject({
      code: ErrCode.Driver,
      op: "set_permission_mode",
    });
    release();
    const asked: string[] = [];
    for await (const event of stream) {
      if (event.type === "approval-request") {
        asked.push(event.request.title);
        event.request.deny("no");
      }
    }
    // Still under ask: the host is asked, and its deny is the answer (auto_approve would have approved unasked).
    expect(asked).toEqual(["after"]);
    expect((await stream.result()).text).toBe("deny");
  });

  it("an interrupted turn's partial answer is not held to the output schema", async () => {
    const { driver, attach } = controllable({ interrupt: true });
    await using agent = new Agent({
      ...driver,
      descriptor: {
        ...driver.descriptor,
        capabilities: { ...driver.descriptor.capabilities, structuredOutput: { native: false, prompt: true } },
      },
    });
    const stream = agent.stream("go", { schemaJSON: { type: "object", required: ["answer"] } });
    attach();
    await stream.interrupt();
    const result = await stream.result();
    expect(result.status).toBe("interrupted");
    expect(result.text).toBe("partial");
  });

  describe("an interrupt the turn does not honour (driver killGraceMs 100: bound 3 x 100 + 5,000 ms)", () => {
    /** A driver whose turn ignores the interrupt (`acknowledged`: the CLI answers it, or never does) and ends only at its signal. */
    function deaf(acknowledged: boolean) {
      const base = scriptedDriver(async () => ({}));
      const driver: Driver & { config: { killGraceMs: number } } = {
        ...base,
        config: { killGraceMs: 100 },
        descriptor: { ...base.descriptor, capabilities: { ...base.descriptor.capabilities, turnControl: { interrupt: true } } },
        async run(_request, sink, signal): Promise<DriverResponse> {
          const detach = sink.attachControl?.({ interrupt: () => (acknowledged ? Promise.resolve() : new Promise<void>(() => undefined)) });
          try {
            return await untilAborted(signal);
          } finally {
            detach?.();
          }
        },
      };
      return driver;
    }

    it("unanswered: the run is ended like a cancel with a TIMEOUT DriverError (op interrupt) and interrupt() resolves false", async () => {
      await using agent = new Agent(deaf(false));
      const stream = agent.stream("go");
      const interrupted = stream.interrupt();
      const error = await stream.result().then(
        () => undefined,
        (reason: unknown) => reason,
      );
      expect(error).toBeInstanceOf(DriverError);
      expect(error).toMatchObject({ code: ErrCode.Timeout, op: "interrupt" });
      expect((error as Error).message).toContain("the turn did not end within 5300 ms of the interrupt");
      await expect(interrupted).resolves.toBe(false);
    }, 30_000);

    it("answered but the turn goes on: interrupt() resolves true and the run is still ended at the bound", async () => {
      await using agent = new Agent(deaf(true));
      const stream = agent.stream("go");
      await expect(stream.interrupt()).resolves.toBe(true);
      await expect(stream.result()).rejects.toMatchObject({ code: ErrCode.Timeout, op: "interrupt" });
    }, 30_000);
  });
});
