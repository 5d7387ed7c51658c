import { connect } from "node:net";
import { describe, expect, it } from "vitest";
import { refusedLocalPort } from "./refused-port.js";

describe("refusedLocalPort", () => {
  it("gives a port below the ephemeral range where a connection to 127.0.0.1 is refused", async () => {
    const port = await refusedLocalPort();
    expect(port).toBeLessThan(1024);
    const code = await new Promise<string | undefined>((resolve) => {
      const socket = connect({ host: "127.0.0.1", port });
      socket.once("connect", () => {
        socket.destroy();
        resolve(undefined);
      });
      socket.once("error", (error: NodeJS.ErrnoException) => resolve(error.code));
    });
    expect(code).toBe("ECONNREFUSED");
  });
});
