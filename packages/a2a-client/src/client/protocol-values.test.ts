import { Role, TaskState } from "@a2a-js/sdk";
import { describe, expect, it } from "vitest";
import { ROLE_USER, TASK_STATE } from "./protocol-values.js";

describe("the protocol values kept without the A2A SDK", () => {
  it("are the A2A SDK's TaskState numbers, every state of the enum", () => {
    const fromSdk = Object.fromEntries(
      Object.entries(TaskState)
        .filter(([name, value]) => name.startsWith("TASK_STATE_") && typeof value === "number")
        .map(([name, value]) => [name.slice("TASK_STATE_".length), value]),
    );
    expect(TASK_STATE).toEqual(fromSdk);
  });

  it("send messages in the A2A SDK's user role", () => {
    expect(ROLE_USER).toBe(Role.ROLE_USER);
  });
});
