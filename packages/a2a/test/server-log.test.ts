// The server's diagnostics: one line per refused or failed client request, through the host's
// `log` option (default: console.warn), never the @a2a-js/sdk server's multi-line stacks on
// console.error. The console spies are set before any server exists in this file.
import { randomUUID } from "node:crypto";
import { afterEach, describe, expect, it, vi } from "vitest";
import { serve, type Served } from "./support.js";

const errorSpy = vi.spyOn(console, "error").mockImplementation(() => undefined);
const warnSpy = vi.spyOn(console, "warn").mockImplementation(() => undefined);

let served: Served | undefined;
afterEach(async () => {
  await served?.close();
  served = undefined;
  errorSpy.mockClear();
  warnSpy.mockClear();
});

/** Three client errors the SDK server reports: an old protocol version, a stream and a resubscription of unknown tasks. */
async function clientErrors(url: string): Promise<void> {
  const rpc = (method: string, params: unknown, headers: Record<string, string> = { "a2a-version": "1.0" }) =>
    fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: "Bearer sk-never-logged-1234", ...headers },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
    }).then((r) => r.text());
  await rpc("SendMessage", { message: { messageId: randomUUID(), role: "ROLE_USER", parts: [{ text: "hi" }] } }, {});
  const message = { messageId: randomUUID(), role: "ROLE_USER", taskId: "no-such-task", parts: [{ text: "hi" }] };
  await rpc("SendStreamingMessage", { message });
  await rpc("SubscribeToTask", { id: "no-such-task" });
}

describe("A2A server log", () => {
  it("each client error is one line through the log option: its name and message, no stack, nothing on console", async () => {
    const lines: [string, string][] = [];
    served = await serve(undefined, { log: (line, level) => lines.push([line, level]) });
    await clientErrors(served.url);
    expect(lines.length).toBe(3);
    expect(lines[0]![0]).toMatch(/VersionNotSupportedError: The requested A2A protocol version '0\.3' is not supported/);
    expect(lines[1]![0]).toMatch(/TaskNotFoundError: Task not found: no-such-task/);
    expect(lines[2]![0]).toMatch(/TaskNotFoundError: Task not found: no-such-task/);
    for (const [line, level] of lines) {
      expect(level).toBe("error");
      expect(line).not.toContain("\n");
      expect(line).not.toMatch(/\bat .+:\d+:\d+|node_modules/);
      expect(line.length).toBeLessThan(300);
      expect(line).not.toContain("sk-never-logged");
    }
    expect(errorSpy).not.toHaveBeenCalled();
    expect(warnSpy).not.toHaveBeenCalled();
  });

  it("a line quoting what a client sent has it redacted as a failed task's message is: API keys by their shape, credential pairs, Bearer values", async () => {
    const lines: string[] = [];
    served = await serve(undefined, { log: (line) => lines.push(line) });
    const secrets = [
      "sk-ant-api03-AAAAAAAAAAAAAAAAAAAAAAAAAAAA",
      "ghp_ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789",
      "api_key=ABCDEF0123456789xyz",
      "Bearer abcdef0123456789xyz",
      '{"password":"hunter2hunter2"}',
    ];
    for (const id of secrets)
      await fetch(served.url, {
        method: "POST",
        headers: { "content-type": "application/json", "a2a-version": "1.0" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "SubscribeToTask", params: { id } }),
      }).then((r) => r.text());
    expect(lines).toHaveLength(secrets.length);
    for (const line of lines) {
      expect(line).toMatch(/TaskNotFoundError: Task not found: .*\[redacted\]/);
      for (const value of ["AAAAAAAAAAAAAAAA", "ABCDEFGHIJKLMNOP", "ABCDEF0123456789xyz", "abcdef0123456789xyz", "hunter2hunter2"])
        expect(line).not.toContain(value);
    }
  });

  it("by default each line goes to console.warn, prefixed 'a2a server: '; console.error stays quiet", async () => {
    served = await serve();
    await clientErrors(served.url);
    expect(errorSpy).not.toHaveBeenCalled();
    expect(warnSpy).toHaveBeenCalledTimes(3);
    for (const [line] of warnSpy.mock.calls) {
      expect(line).toMatch(/^a2a server: .*(VersionNotSupportedError|TaskNotFoundError)/);
      expect(String(line)).not.toContain("\n");
    }
  });

  it("outside a server's requests the console is untouched", () => {
    console.error("host line");
    expect(errorSpy).toHaveBeenCalledWith("host line");
  });
});
