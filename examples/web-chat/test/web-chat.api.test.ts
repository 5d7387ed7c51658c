import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startWebChat, type WebChat } from "../src/server.js";
import { isApproval, json, readUntil } from "./support.js";

// The web chat's API as a page that loses its stream uses it (real claude binary, scripted model):
// an approval card gives the person the approval's five minutes, not the bridge's 5 s reconnect grace.

let chat: WebChat | undefined;
beforeAll(async () => {
  chat = await startWebChat();
});
afterAll(async () => {
  await chat?.close();
});

describe("web chat API (real claude binary, scripted model)", { timeout: 180_000 }, () => {
  it("a page that drops while an approval card is open can answer it after the 5 s grace, reconnect with Last-Event-ID and see the task finish", async () => {
    const api = new URL("api/", chat!.url).href;
    const dropped = new AbortController();
    const response = await fetch(`${api}runs`, {
      method: "POST",
      headers: json,
      body: JSON.stringify({ prompt: "Write down that the README needs examples." }),
      signal: dropped.signal,
    });
    expect(response.status).toBe(200);
    const key = response.headers.get("x-adaptor-run-id")!;
    const seen = await readUntil(response.body!.getReader(), isApproval);
    const write = seen.at(-1)!.data["request"] as { id: string; toolName: string; createdAt: string; deadline: string };
    expect(write.toolName).toBe("Write");
    // The person has five minutes to decide.
    expect(Date.parse(write.deadline) - Date.parse(write.createdAt)).toBe(300_000);
    dropped.abort();

    // Past the bridge's 5 s reconnect grace.
    await new Promise((resolve) => setTimeout(resolve, 6_500));
    const answer = await fetch(`${api}approvals/${write.id}`, {
      method: "POST",
      headers: json,
      body: JSON.stringify({ decision: "approve" }),
    });
    expect(await answer.json()).toEqual({ id: write.id, status: "approved" });

    const again = await fetch(`${api}runs/${key}/events`, { headers: { "last-event-id": seen.at(-1)!.id! } });
    expect(again.status).toBe(200);
    const reader = again.body!.getReader();
    const bash = (await readUntil(reader, isApproval)).at(-1)!.data["request"] as { id: string; toolName: string };
    expect(bash.toolName).toBe("Bash");
    const denied = await fetch(`${api}approvals/${bash.id}`, { method: "POST", headers: json, body: JSON.stringify({ decision: "deny" }) });
    expect(await denied.json()).toEqual({ id: bash.id, status: "denied" });
    const end = (await readUntil(reader, (m) => m.data["type"] === "run-finished")).at(-1)!;
    expect(end.data).toMatchObject({ type: "run-finished", ok: true });
  });
});
