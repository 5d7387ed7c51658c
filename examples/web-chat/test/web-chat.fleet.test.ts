import { randomBytes } from "node:crypto";
import { afterAll, describe, expect, it } from "vitest";
import { startWebChat, startWebChatWorker, type WebChat, type WebChatWorker } from "../src/server.js";
import { isApproval, json, readUntil } from "./support.js";

// The web chat on a fleet (real claude binary, scripted model, PostgreSQL from
// scripts/with-postgres.sh): a worker and two front-ends. A task started on one front-end is
// answered and followed on the other, as a page behind a load balancer would be.

const PG_URL = process.env.ADAPTOR_TEST_PG_URL;

if (!PG_URL) {
  console.warn("[web chat] ADAPTOR_TEST_PG_URL is not set: skipping the fleet test. Run it under scripts/with-postgres.sh.");
  describe.skip("web chat on a fleet (ADAPTOR_TEST_PG_URL not set)", () => {
    it("needs a PostgreSQL server", () => {});
  });
} else {
  const schema = `web_chat_${randomBytes(5).toString("hex")}`;
  const opened: { close(): Promise<void> }[] = [];
  afterAll(async () => {
    for (const closable of opened.reverse()) await closable.close();
  });

  describe("web chat on a fleet (real claude binary, scripted model)", { timeout: 180_000 }, () => {
    it("a task started on front-end A is answered on B, followed on B with Last-Event-ID, and run by the worker", async () => {
      const worker: WebChatWorker = await startWebChatWorker({ connectionString: PG_URL, schema });
      opened.push(worker);
      const a: WebChat = await startWebChat({ fleet: { connectionString: PG_URL, schema } });
      opened.push(a);
      const b: WebChat = await startWebChat({ fleet: { connectionString: PG_URL, schema } });
      opened.push(b);
      const apiA = new URL("api/", a.url).href;
      const apiB = new URL("api/", b.url).href;

      const dropped = new AbortController();
      const response = await fetch(`${apiA}runs`, {
        method: "POST",
        headers: json,
        body: JSON.stringify({ prompt: "Write down that the README needs examples." }),
        signal: dropped.signal,
      });
      expect(response.status).toBe(200);
      const key = response.headers.get("x-adaptor-run-id")!;
      const seen = await readUntil(response.body!.getReader(), isApproval);
      expect(seen[0]?.data).toMatchObject({ type: "attempt-started", attempt: 1 });
      const write = seen.at(-1)!.data["request"] as { id: string; toolName: string };
      expect(write.toolName).toBe("Write");
      dropped.abort();

      const answer = await fetch(`${apiB}approvals/${write.id}`, {
        method: "POST",
        headers: json,
        body: JSON.stringify({ decision: "approve" }),
      });
      expect(await answer.json()).toEqual({ id: write.id, status: "approved" });
      const again = await fetch(`${apiB}runs/${key}/events`, { headers: { "last-event-id": seen.at(-1)!.id! } });
      expect(again.status).toBe(200);
      const reader = again.body!.getReader();
      const rest = await readUntil(reader, isApproval);
      expect(Number(rest[0]?.id)).toBe(Number(seen.at(-1)!.id) + 1);
      const bash = rest.at(-1)!.data["request"] as { id: string; toolName: string };
      expect(bash.toolName).toBe("Bash");
      const denied = await fetch(`${apiA}approvals/${bash.id}`, {
        method: "POST",
        headers: json,
        body: JSON.stringify({ decision: "deny" }),
      });
      expect(await denied.json()).toEqual({ id: bash.id, status: "denied" });
      const end = await readUntil(reader, (m) => m.data["type"] === "run-finished");
      expect(end.at(-1)?.data).toMatchObject({ type: "run-finished", ok: true });
      const text = end
        .filter((m) => m.data["type"] === "text-delta")
        .map((m) => String(m.data["text"]))
        .join("");
      expect(text).toContain("You declined `rm -rf ./build`");
    });
  });
}
