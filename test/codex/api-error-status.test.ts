import { describe, expect, it } from "vitest";
import { Agent, ErrAgentFailed, isError, RunError } from "adaptor";
import { codexHarness } from "./support.js";

// A model API error on the real codex binary names its HTTP status in RunError.details.apiErrorStatus
// (as on Claude Code), on both transports, whichever shape codex gives the error: a status in
// codexErrorInfo (app-server), in the error text ("unexpected status 401 …", "last status: 429"),
// only the API's error body (codex's HTTP 400), or only codex's own text (its HTTP 500).

async function failure(run: Promise<unknown>): Promise<RunError> {
  const error = await run.then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(isError(error, ErrAgentFailed)).toBe(true);
  return error as RunError;
}

describe("model API errors on the real codex binary", { timeout: 120_000 }, () => {
  for (const transport of ["app-server", "exec"] as const) {
    it(`carry the HTTP status in details.apiErrorStatus on ${transport}: 401, 429, 400 and 500`, async () => {
      const h = await codexHarness({ config: { transport } });
      const agent = new Agent(h.driver);
      try {
        const unauthorized = await failure(agent.run("HTTP_ERROR 401"));
        expect(unauthorized.details).toMatchObject({ apiErrorStatus: 401 });
        expect(unauthorized.message).toContain("401 Unauthorized");
        expect((await failure(agent.run("HTTP_ERROR 429"))).details).toMatchObject({ apiErrorStatus: 429 });
        // codex reports a 400 as the API's error body alone.
        const bad = await failure(agent.run("HTTP_ERROR 400"));
        expect(bad.details).toMatchObject({ apiErrorStatus: 400, apiError: { message: "scripted error 400" } });
        expect(bad.message).toBe("scripted error 400");
        // codex reports a 500 with a text of its own, naming no status.
        const server = await failure(agent.run("HTTP_ERROR 500"));
        expect(server.details).toMatchObject({ apiErrorStatus: 500 });
        expect(server.message).toBe("We\u2019re currently experiencing high demand, which may cause temporary errors.");
      } finally {
        await agent.close();
        await h.close();
      }
    });
  }
});
