import { describe, expect, it } from "vitest";
import { floodBody } from "../../bridge/test/raw-socket.js";
import { serve } from "./support.js";

// A body over the limit is refused as soon as the limit is passed, with the JSON 413 and the
// connection closed, as the bridge does: not read to its end (or for the whole bodyTimeoutMs).
describe("the A2A server's body limit", () => {
  for (const [what, chunked, length] of [
    ["a chunked body without end", true, undefined],
    ["a body announcing 50 MB", false, 50_000_000],
  ] as const) {
    it(`${what} gets 413 request body too large at the limit, and the connection closed`, async () => {
      const served = await serve(undefined, { log: () => undefined });
      const url = new URL(served.url);
      try {
        for (const path of ["/", "/rest/message:send"]) {
          const head =
            `POST ${path} HTTP/1.1\r\nhost: ${url.host}\r\ncontent-type: application/json\r\na2a-version: 1.0\r\n` +
            (chunked ? "transfer-encoding: chunked\r\n\r\n" : `content-length: ${length}\r\n\r\n`);
          const flooded = await floodBody(Number(url.port), head, chunked);
          expect(flooded.answer, path).toMatch(/^HTTP\/1\.1 413 /);
          expect(flooded.answer).toContain('{"error":"request body too large"}');
          expect(flooded.answer.toLowerCase()).toContain("connection: close");
          expect(flooded.closed).toBe(true);
          // Refused near 100 kB, not read on to the 32 MB the client would send.
          expect(flooded.sent).toBeLessThan(16 * 1024 * 1024);
        }
      } finally {
        await served.close();
      }
    });
  }
});
