// A tool name longer than 200 characters reaches the rules cut to its first 200: two different
// names sharing those 200 characters must not share a remembered allow, and a deny on a long name
// still matches its cut form.
import { describe, expect, it } from "vitest";
import type { ApprovalAsk } from "@adaptor/driver";
import { runAsks } from "./support/run-asks.js";

/** A title-named ask (an ACP agent sending no tool name) of a web fetch: `fetch: <url>`, no command nor file. */
const fetchAsk = (url: string): ApprovalAsk => ({
  kind: "permission",
  title: `fetch: ${url}`,
  toolName: `fetch: ${url}`,
  input: { url },
  details: { toolKind: "fetch" },
});
const BASE = "https://docs.example.com/" + "a".repeat(200);

describe("approval rules on a tool name cut to 200 characters", () => {
  it("an allow remembered on one long name does not approve another name sharing its first 200 characters: it is asked", async () => {
    const { requests, decisions } = await runAsks(
      [fetchAsk(`${BASE}/public`), fetchAsk(`${BASE}/leak?data=secret`)],
      { approvals: { permission: "ask" } },
      (request) => (request.suggestions.length > 0 ? request.approve({ remember: request.suggestions[0]! }) : request.approve()),
    );
    expect(requests.map((r) => r.input)).toEqual([{ url: `${BASE}/public` }, { url: `${BASE}/leak?data=secret` }]);
    expect(decisions).toEqual([{ outcome: "approve" }, { outcome: "approve" }]);
  });

  it("a call whose name may have been cut is offered no suggestion (a rule on its first 200 characters would name other tools too)", async () => {
    const { requests, decisions } = await runAsks(
      [fetchAsk(`${BASE}/public`), fetchAsk("https://short.example.com/")],
      { approvals: { permission: "ask" } },
      (r) => r.approve(),
    );
    expect(requests.map((r) => r.suggestions)).toEqual([[], [{ toolName: "fetch: https://short.example.com/" }]]);
    expect(decisions).toEqual([{ outcome: "approve" }, { outcome: "approve" }]);
  });

  it("a shell call whose title-name may have been cut is offered its command alone, which a later call of it matches", async () => {
    const command = `echo ${"b".repeat(200)}`;
    const shell: ApprovalAsk = {
      kind: "permission",
      title: `execute_bash: ${command}`,
      toolName: `execute_bash: ${command}`,
      input: { command },
      details: { toolKind: "execute" },
    };
    const { requests, decisions } = await runAsks([shell, shell], { approvals: { permission: "ask" } }, (r) =>
      r.approve({ remember: r.suggestions[0]! }),
    );
    expect(requests.map((r) => r.suggestions)).toEqual([[{ command }]]);
    expect(decisions).toEqual([{ outcome: "approve" }, { outcome: "approve" }]);
  });

  it("an approve remembering a rule on a name that may have been cut is refused (InvalidOptionError, remember.toolName), nothing decided", async () => {
    const refusals: unknown[] = [];
    const { decisions } = await runAsks([fetchAsk(`${BASE}/public`)], { approvals: { permission: "ask" } }, (r) => {
      try {
        r.approve({ remember: { toolName: r.toolName! } });
      } catch (error) {
        refusals.push(error);
        r.deny("refused");
      }
    });
    expect(refusals).toMatchObject([{ name: "InvalidOptionError", field: "remember.toolName" }]);
    expect(decisions).toEqual([{ outcome: "deny", reason: "refused" }]);
  });

  it("a policy allow rule naming a long tool does not match a cut name; a policy deny naming it does", async () => {
    const long = `fetch: ${BASE}/public`;
    const allowed = await runAsks(
      [fetchAsk(`${BASE}/leak`)],
      { approvals: { permission: "ask", rules: [{ toolName: long.slice(0, 200), outcome: "approve" }] } },
      (r) => r.deny("asked"),
    );
    expect(allowed.requests.length).toBe(1);
    expect(allowed.decisions).toEqual([{ outcome: "deny", reason: "asked" }]);
    const denied = await runAsks(
      [fetchAsk(`${BASE}/public`)],
      { approvals: { permission: "ask", rules: [{ toolName: long, outcome: "deny", reason: "no" }] } },
      (r) => r.approve(),
    );
    expect(denied.requests).toEqual([]);
    expect(denied.decisions).toEqual([{ outcome: "deny", reason: "no" }]);
  });
});
