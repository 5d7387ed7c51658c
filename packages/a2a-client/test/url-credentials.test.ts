// Credentials carried in the agent URL itself: userinfo (`user:password@`) is refused before
// anything is sent; a credential in the query is redacted from every message, like a header value.
import { ErrInvalidOption, findError, InvalidOptionError, isError } from "@adaptor/errors";
import { invokeTool } from "@adaptor/tool/internal";
import { describe, expect, it } from "vitest";
import { A2AClient, a2aDelegation, ErrInvalidAgentCard, ErrProtocol, ProtocolError } from "../src/index.js";
import { agent, plain, rejection } from "./support.js";

/** Every message, stack, reason and raw text on `err`'s cause chain. */
function everyText(err: unknown): string[] {
  const texts: string[] = [];
  for (let node: unknown = err, depth = 0; node instanceof Error && depth < 10; node = node.cause, depth++) {
    texts.push(node.message, String(node.stack));
    const protocol = findError(node, ProtocolError);
    if (protocol === node) texts.push(protocol.reason, protocol.raw ?? "");
  }
  return texts;
}

describe("credentials in the agent URL's userinfo", () => {
  it("connect() refuses them with InvalidOptionError (field url) before any request, the credentials in no message", async () => {
    const server = await plain((_req, res) => res.writeHead(404).end());
    const { host } = new URL(server.url);
    for (const url of [`http://user:PASSWORD-XYZ-123456@${host}/agent`, `http://TOKEN-AS-USER-987654@${host}/`]) {
      const err = await rejection(A2AClient.connect(url, { headers: { authorization: "Bearer T-abcdefgh12345" } }));
      expect(isError(err, ErrInvalidOption), url).toBe(true);
      expect(isError(err, ErrProtocol), url).toBe(false);
      expect(findError(err, InvalidOptionError)).toMatchObject({ subject: "A2AClient.connect()", field: "url" });
      expect((err as Error).message).toContain(`http://[redacted]@${host}/`);
      for (const text of everyText(err)) expect(text).not.toMatch(/PASSWORD-XYZ|TOKEN-AS-USER/);
    }
    expect(server.requests).toEqual([]);
  });

  it("a2aDelegation() refuses them when the tool is made, not at the model's first call", () => {
    let thrown: unknown;
    try {
      a2aDelegation({ url: "http://user:PASSWORD-XYZ-123456@127.0.0.1:9/x", name: "ask" });
    } catch (error) {
      thrown = error;
    }
    expect(findError(thrown, InvalidOptionError)).toMatchObject({ subject: "a2aDelegation()", field: "url" });
    expect(String((thrown as Error).message)).not.toContain("PASSWORD-XYZ");
    expect(() => a2aDelegation({ url: "ftp://127.0.0.1/x" })).toThrow(TypeError);
    const malformed = (() => {
      try {
        a2aDelegation({ url: "not a url with pw:SECRET-1@x" });
      } catch (error) {
        return error as Error & { input?: unknown };
      }
    })();
    expect(malformed).toBeInstanceOf(TypeError);
    expect(malformed?.message).toBe("A2A card URL must be an absolute http or https URL");
    expect(malformed?.input).toBeUndefined();
  });

  it("a card whose interface URL carries userinfo is ErrInvalidAgentCard, its password redacted from raw and message", async () => {
    const card = JSON.stringify({
      name: "x",
      supportedInterfaces: [{ url: "http://svc:CARD-PW-55555@127.0.0.1:9/a2a", protocolBinding: "JSONRPC" }],
    });
    const server = await plain((_req, res) => res.writeHead(200, { "content-type": "application/json" }).end(card));
    const err = await rejection(A2AClient.connect(server.url));
    expect(isError(err, ErrInvalidAgentCard)).toBe(true);
    expect(findError(err, ProtocolError)).toMatchObject({ reason: "supportedInterfaces[0].url carries credentials (user:password@)" });
    expect(findError(err, ProtocolError)?.raw).toContain('"url":"http://[redacted]@127.0.0.1:9/a2a"');
    for (const text of everyText(err)) expect(text).not.toContain("CARD-PW-55555");
  });
});

describe("a credential in the agent URL's query", () => {
  it("is redacted from every error message: a card that is not there (404) and echoes it, a refused connection", async () => {
    const secret = "QUERYSECRET-123456";
    const echoing = await plain((req, res) => res.writeHead(404).end(`no card at ${req.url} (key ${secret})`));
    const err = await rejection(A2AClient.connect(`${echoing.url}/nope?api_key=${secret}&page=2`));
    expect(isError(err, ErrInvalidAgentCard)).toBe(true);
    expect(findError(err, ProtocolError)).toMatchObject({
      reason: `HTTP 404 for ${echoing.url}/nope/.well-known/agent-card.json?api_key=[redacted]&page=2`,
      raw: "no card at /nope/.well-known/agent-card.json?api_key=[redacted]&page=2 (key [redacted])",
    });
    for (const text of everyText(err)) expect(text).not.toContain(secret);

    const gone = await plain(() => undefined);
    await gone.close();
    const refused = await rejection(A2AClient.connect(`${gone.url}/?access_token=${secret}`));
    expect(findError(refused, ProtocolError)?.reason).toBe("connection failed");
    for (const text of everyText(refused)) expect(text).not.toContain(secret);
  });

  it("is redacted from what the model and the run read of a2aDelegation: its description and the started notice", async () => {
    const remote = await agent();
    const tool = a2aDelegation({ url: `${remote.url}/?api_key=QUERYSECRET-123456`, name: "ask" });
    expect(tool.description).toContain(`${remote.url}/?api_key=[redacted]`);
    const notices: unknown[] = [];
    const outcome = await invokeTool(
      tool,
      { task: "echo hi" },
      { signal: new AbortController().signal, runId: "run-1", toolCallId: "call-1", notice: (_kind, _message, data) => notices.push(data) },
    );
    expect(outcome).toMatchObject({ kind: "success" });
    expect(notices[0]).toMatchObject({ url: `${remote.url}/?api_key=[redacted]` });
    expect(JSON.stringify([tool.description, notices])).not.toContain("QUERYSECRET");
  });
});
