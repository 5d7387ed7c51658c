import { randomUUID } from "node:crypto";
import { HttpAgent } from "@ag-ui/client";
import type { BaseEvent } from "@ag-ui/core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { DriverRequest, DriverResponse, DriverSink } from "@adaptor/driver";
import { ReferenceDriver } from "@adaptor/driver/testing";
import { Agent } from "adaptor";
import { AG_UI_CUSTOM_EVENTS } from "../src/index.js";
import { postJson, readUntil, serve, sseMessages, type Served } from "./support.js";

// A driver's notices carry what a CLI or an SDK printed (stderr lines, log lines): the bridge
// redacts them like its public error messages before a remote client sees them.

const HOST_SECRET_ENV = "NOTICE_REDACTION_TEST_TOKEN";
const HOST_SECRET = "host-env-secret-0123456789";
const LEAKY =
  "ACP SDK: HOST-PRIVATE-LOG touch x token=ghp_abcdefghijklmnopqrstuvwxyz0123456789 db=postgres://admin:hunter2@db/prod\n" +
  `second line env=${HOST_SECRET}`;

/** The reference driver, plus one runtime notice carrying credentials before its turn. */
class LeakyNoticeDriver extends ReferenceDriver {
  override run(request: DriverRequest, sink: DriverSink, signal: AbortSignal): Promise<DriverResponse> {
    sink.emit({
      type: "notice",
      kind: "runtime",
      message: LEAKY,
      data: { level: "log", line: "Authorization: Bearer abcdefghijklmnop123", nested: [{ url: "https://u:hunter2@h/x" }] },
    });
    return super.run(request, sink, signal);
  }
}

const EXPECTED_MESSAGE = "ACP SDK: HOST-PRIVATE-LOG touch x token=[redacted] db=postgres://[redacted]@db/prod\nsecond line env=[redacted]";
const EXPECTED_DATA = { level: "log", line: "Authorization: Bearer [redacted]", nested: [{ url: "https://[redacted]@h/x" }] };

let served: Served | undefined;
beforeEach(() => {
  process.env[HOST_SECRET_ENV] = HOST_SECRET;
});
afterEach(async () => {
  await served?.close();
  served = undefined;
  delete process.env[HOST_SECRET_ENV];
});

describe("the bridge redacts a driver's notices like its error messages", () => {
  it("raw: a notice's message (every line) and its data strings reach the client redacted", async () => {
    served = await serve({ runner: new Agent(new LeakyNoticeDriver({ latencyMs: 0 })) });
    const response = await postJson(`${served.url}/runs`, { prompt: "hello" });
    const messages = await readUntil(sseMessages(response), (m) => m.data["type"] === "run-finished");
    const notice = messages.find((m) => m.data["type"] === "notice" && m.data["kind"] === "runtime");
    expect(notice?.data).toMatchObject({ message: EXPECTED_MESSAGE, data: EXPECTED_DATA });
    const wire = JSON.stringify(messages.map((m) => m.data));
    expect(wire).not.toMatch(/hunter2|ghp_abc|abcdefghijklmnop123/);
    expect(wire).not.toContain(HOST_SECRET);
  });

  it("ag-ui: the adaptor.notice CUSTOM event carries the redacted message and data", async () => {
    served = await serve({ runner: new Agent(new LeakyNoticeDriver({ latencyMs: 0 })) });
    const agent = new HttpAgent({ url: `${served.url}/ag-ui`, initialMessages: [{ id: randomUUID(), role: "user", content: "hello" }] });
    const events: BaseEvent[] = [];
    await agent.runAgent({ runId: "run-notice" }, { onEvent: ({ event }) => void events.push(event) });
    const notice = events.find(
      (e) =>
        e.type === "CUSTOM" &&
        (e as { name?: string }).name === AG_UI_CUSTOM_EVENTS.notice &&
        (e as { value?: { kind?: string } }).value?.kind === "runtime",
    ) as { value?: unknown } | undefined;
    expect(notice?.value).toEqual({ kind: "runtime", message: EXPECTED_MESSAGE, data: EXPECTED_DATA });
    const wire = JSON.stringify(events);
    expect(wire).not.toMatch(/hunter2|ghp_abc|abcdefghijklmnop123/);
    expect(wire).not.toContain(HOST_SECRET);
  });
});

const LATE_ENV = "NOTICE_REDACTION_LATE_TOKEN";
const LATE_SECRET = "late-rotated-secret-9876543210";

/** Echoes the late secret in a notice before failing with it in the message. */
class LateSecretDriver extends ReferenceDriver {
  override run(request: DriverRequest, sink: DriverSink, signal: AbortSignal): Promise<DriverResponse> {
    sink.emit({ type: "notice", kind: "warning", message: `mystery ${LATE_SECRET}`, data: { detail: LATE_SECRET } });
    return super.run({ ...request, prompt: `FAIL upstream refused ${LATE_SECRET}` }, sink, signal);
  }
}

describe("a credential-named variable set after the bridge was built is redacted too", () => {
  afterEach(() => {
    delete process.env[LATE_ENV];
  });

  it("raw: the notice and the verdict's message hide a value put in process.env after new Bridge()", async () => {
    served = await serve({ runner: new Agent(new LateSecretDriver({ latencyMs: 0 })) });
    process.env[LATE_ENV] = LATE_SECRET; // a vault loader or a key rotation, after start-up
    const response = await postJson(`${served.url}/runs`, { prompt: "hello" });
    const messages = await readUntil(sseMessages(response), (m) => m.data["type"] === "run-finished");
    const notice = messages.find((m) => m.data["type"] === "notice" && m.data["kind"] === "warning");
    expect(notice?.data).toMatchObject({ message: "mystery [redacted]", data: { detail: "[redacted]" } });
    expect(messages.at(-1)?.data).toMatchObject({ type: "run-finished", ok: false, message: "upstream refused [redacted]" });
    expect(JSON.stringify(messages.map((m) => m.data))).not.toContain(LATE_SECRET);
  });

  it("ag-ui: RUN_ERROR and the notice hide it as well", async () => {
    served = await serve({ runner: new Agent(new LateSecretDriver({ latencyMs: 0 })) });
    process.env[LATE_ENV] = LATE_SECRET;
    const response = await postJson(`${served.url}/ag-ui`, {
      threadId: "t-late",
      runId: "r-late",
      messages: [{ id: randomUUID(), role: "user", content: "hello" }],
      tools: [],
      context: [],
      state: {},
      forwardedProps: {},
    });
    const messages = await readUntil(sseMessages(response), (m) => m.data["type"] === "RUN_ERROR" || m.data["type"] === "RUN_FINISHED");
    expect(messages.at(-1)?.data).toMatchObject({ type: "RUN_ERROR", message: "upstream refused [redacted]" });
    expect(JSON.stringify(messages.map((m) => m.data))).not.toContain(LATE_SECRET);
  });
});
