import { afterEach, describe, expect, it } from "vitest";
import { Agent } from "adaptor";
import { ReferenceDriver } from "@adaptor/driver/testing";
import { Fleet } from "@adaptor/fleet";
import { freshSchema, PG_URL, skipWithoutServer } from "../../fleet/test/support/pg.js";
import { postJson, readUntil, serve, sseMessages } from "./support.js";

// `remember` through a bridge over a fleet: the answer is recorded in PostgreSQL with its rule, and
// the worker's run answers its later matching asks itself.

const NPM_TEST = { toolName: "shell", command: "npm test" };

if (!PG_URL) {
  skipWithoutServer("bridge over a fleet: remember");
} else {
  const url = PG_URL;
  const closers: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const close of closers.splice(0).reverse()) await close();
  });

  describe("bridge over a fleet: remember", () => {
    it("POST approvals/<id> with remember: the second ask is answered on the worker (one approval-request on the wire); a rule that does not match is 422 approval_invalid_remember", async () => {
      const schema = freshSchema("bridge_remember");
      const worker = new Fleet({ connectionString: url, schema });
      const front = new Fleet({ connectionString: url, schema });
      closers.push(
        () => worker.close(),
        () => front.close(),
      );
      await worker.worker(new Agent(new ReferenceDriver({ latencyMs: 0 })), { concurrency: 1 });
      const served = await serve({ fleet: front });
      closers.push(() => served.close());

      const messages = sseMessages(await postJson(`${served.url}/runs`, { prompt: "TOOL npm test\nTOOL npm test" }));
      const asked = (await readUntil(messages, (m) => m.data["type"] === "approval-request")).at(-1)!;
      const request = asked.data["request"] as { id: string; suggestions: unknown[] };
      expect(request.suggestions).toEqual([NPM_TEST]);
      const approvalUrl = `${served.url}/approvals/${request.id}`;

      const other = await postJson(approvalUrl, { decision: "approve", remember: { toolName: "shell", command: "make" } });
      expect(other.status).toBe(422);
      expect(await other.json()).toMatchObject({ error: { code: "approval_invalid_remember", field: "remember" } });
      expect((await front.approval(request.id))?.status).toBe("pending");

      const answer = await postJson(approvalUrl, { decision: "approve", remember: request.suggestions[0] });
      expect(answer.status).toBe(200);
      expect(await answer.json()).toEqual({ id: request.id, status: "approved" });
      const rest = await readUntil(messages, (m) => m.data["type"] === "run-finished");
      expect(rest.filter((m) => m.data["type"] === "approval-request")).toEqual([]);
      expect(rest.find((m) => m.data["kind"] === "approval.remembered")?.data["data"]).toMatchObject({
        rule: NPM_TEST,
        outcome: "approved",
      });
      expect(rest.filter((m) => m.data["type"] === "tool-result").map((m) => m.data["output"])).toEqual(["ran npm test", "ran npm test"]);
    });
  });
}
