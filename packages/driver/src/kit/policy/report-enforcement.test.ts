import { describe, expect, it } from "vitest";
import { NOT_ENFORCED_BY_RULE, reportEnforcement } from "./report-enforcement.js";

describe("reportEnforcement", () => {
  it("reports a field whose rule returns undefined as not enforced, and never throws for it", () => {
    const policy = { sandbox: "read_only", approvals: { permission: "ask" } } as const;
    const report = reportEnforcement(policy, (field) =>
      field === "sandbox" ? undefined : { mechanisms: ["approval"], detail: "the CLI asks" },
    );
    expect(report).toEqual([
      { field: "sandbox", value: "read_only", enforced: false, mechanisms: [], detail: NOT_ENFORCED_BY_RULE },
      { field: "approvals.permission", value: "ask", enforced: true, mechanisms: ["approval"], detail: "the CLI asks" },
    ]);
    expect(NOT_ENFORCED_BY_RULE).toBe("the driver's enforcement rule does not enforce it");
  });
});
