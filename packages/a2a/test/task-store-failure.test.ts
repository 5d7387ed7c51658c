import type { TaskStore } from "@a2a-js/sdk/server";
import { describe, expect, it } from "vitest";
import { serve } from "./support.js";

// A task store that cannot reach its database (PostgreSQL down) fails with the driver's message,
// which names the database's address: the A2A client gets a fixed message, never that text.

const DOWN = "connect ECONNREFUSED 127.0.0.1:44819";

/** A task store whose reads and writes fail as a PostgreSQL pool does when the server is down. */
function unreachableStore(): TaskStore {
  const fail = (): Promise<never> => Promise.reject(new Error(DOWN));
  return { save: fail, load: fail, list: fail } as unknown as TaskStore;
}

async function rpc(url: string, method: string, params: unknown): Promise<{ error?: { code: number; message: string } }> {
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", "a2a-version": "1.0" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  return (await response.json()) as { error?: { code: number; message: string } };
}

describe("a task store that cannot reach its database", () => {
  it("SendMessage and GetTask answer a JSON-RPC internal error with a fixed message, not the database's address", async () => {
    const served = await serve(undefined, { taskStore: unreachableStore() });
    try {
      const message = { messageId: "m1", role: "ROLE_USER", parts: [{ text: "hi" }] };
      for (const [method, params] of [
        ["SendMessage", { message }],
        ["SendMessage", { message: { ...message, messageId: "m2", taskId: "t1" } }],
        ["GetTask", { id: "t1" }],
        ["CancelTask", { id: "t1" }],
      ] as const) {
        const { error } = await rpc(served.url, method, params);
        expect(error, method).toEqual({ code: -32603, message: "internal error" });
      }
    } finally {
      await served.close();
    }
  });

  it("a working store's refusals keep their own messages (task not found)", async () => {
    const served = await serve();
    try {
      const { error } = await rpc(served.url, "GetTask", { id: "nope" });
      expect(error?.message).toMatch(/nope/);
    } finally {
      await served.close();
    }
  });
});
