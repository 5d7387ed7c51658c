// A submitted run's input is bounded (maxPayloadBytes) before anything reaches PostgreSQL: a host
// pointed at a closed port shows the refusal comes first.
import { describe, expect, it } from "vitest";
import { DriverError, ErrCode } from "@adaptor/errors";
import { Fleet } from "@adaptor/fleet";

const NOWHERE = "postgres://127.0.0.1:1/none";

async function refusal(fleet: Fleet, run: () => Promise<unknown>): Promise<DriverError> {
  const error = await run().catch((e: unknown) => e);
  await fleet.close();
  expect(error).toBeInstanceOf(DriverError);
  return error as DriverError;
}

describe("maxPayloadBytes", () => {
  it("a prompt, a text part, metadata or a resume decision past the bound is refused with RESOURCE_EXHAUSTED before connecting", async () => {
    const big = "x".repeat(2_000);
    for (const [what, run] of [
      ["prompt", (fleet: Fleet) => fleet.submit(big)],
      ["text part", (fleet: Fleet) => fleet.submit([{ type: "text", text: big }])],
      ["metadata", (fleet: Fleet) => fleet.submit("hi", { runOptions: { metadata: { big } } })],
      [
        "resume",
        (fleet: Fleet) => fleet.submit("", { threadKey: "t", resume: { approvalId: "a", decision: { outcome: "deny", reason: big } } }),
      ],
    ] as const) {
      const fleet = new Fleet({ connectionString: NOWHERE, maxPayloadBytes: 1_024 });
      const error = await refusal(fleet, () => run(fleet));
      expect(error.code, what).toBe(ErrCode.ResourceExhausted);
      expect(error.device).toBe("fleet");
      expect(String(error.cause), what).toContain("more than 1024 bytes");
    }
  });

  it("the default bound is 64 MiB: a 65 MiB metadata string is refused before connecting, a 1 KiB prompt is not", async () => {
    const fleet = new Fleet({ connectionString: NOWHERE });
    const error = await refusal(fleet, () => fleet.submit("hi", { runOptions: { metadata: { big: "x".repeat(65 * 1024 * 1024) } } }));
    expect(error.code).toBe(ErrCode.ResourceExhausted);
    expect(String(error.cause)).toContain(`more than ${64 * 1024 * 1024} bytes`);
    const small = new Fleet({ connectionString: NOWHERE });
    // Under the bound, the submission goes on to connect (and finds nobody there).
    expect((await refusal(small, () => small.submit("y".repeat(1_024)))).code).toBe(ErrCode.ServiceUnavailable);
  });

  it("maxPayloadBytes must be an integer from 1 to 256 MiB", () => {
    for (const maxPayloadBytes of [0, 1.5, 256 * 1024 * 1024 + 1])
      expect(() => new Fleet({ connectionString: NOWHERE, maxPayloadBytes })).toThrow(
        /maxPayloadBytes must be an integer from 1 to 268435456/,
      );
  });
});
