import { connect, type Socket } from "node:net";

/** What a client trickling a request body saw. */
export interface Trickled {
  /** Everything the server sent. */
  readonly answer: string;
  /** Whether the server closed the connection before the client gave up. */
  readonly closed: boolean;
  /** Body bytes sent before the connection closed (or the client gave up). */
  readonly sent: number;
  /** Time from the request head to the close (or to giving up), ms. */
  readonly elapsedMs: number;
}

/**
 * Sends `head` (a request head announcing a `bodyBytes`-byte body) on a raw socket to 127.0.0.1:`port`,
 * then the body one byte every `everyMs`, until the server closes the connection, the body is
 * complete or `giveUpMs` passed.
 */
export async function trickleBody(port: number, head: string, bodyBytes: number, everyMs = 200, giveUpMs = 10_000): Promise<Trickled> {
  const socket = connect(port, "127.0.0.1");
  let answer = "";
  let closed = false;
  socket.on("data", (chunk: Buffer) => (answer += chunk.toString("utf8")));
  socket.on("close", () => (closed = true));
  socket.on("error", () => undefined);
  const start = Date.now();
  let sent = 0;
  try {
    socket.write(head);
    while (!closed && sent < bodyBytes && Date.now() - start < giveUpMs) {
      await new Promise((resolve) => setTimeout(resolve, everyMs));
      if (!closed) socket.write("x");
      sent++;
    }
    return { answer, closed, sent, elapsedMs: Date.now() - start };
  } finally {
    socket.destroy();
  }
}

/** Reads one response with a `content-length` from `socket`: its text, or undefined if the socket closed first. */
function nextResponse(socket: Socket): Promise<string | undefined> {
  return new Promise((resolve) => {
    let text = "";
    const complete = (): boolean => {
      const end = text.indexOf("\r\n\r\n");
      if (end < 0) return false;
      const length = /\r\ncontent-length:\s*(\d+)/i.exec(text.slice(0, end));
      return length !== null && Buffer.byteLength(text.slice(end + 4)) >= Number(length[1]);
    };
    const onData = (chunk: Buffer): void => {
      text += chunk.toString("utf8");
      if (complete()) done(text);
    };
    const onClose = (): void => done(undefined);
    const done = (value: string | undefined): void => {
      socket.off("data", onData);
      socket.off("close", onClose);
      resolve(value);
    };
    socket.on("data", onData);
    socket.once("close", onClose);
  });
}

/**
 * Sends each of `requests` in turn on one raw socket to 127.0.0.1:`port`, each after the answer
 * to the previous one: the answers (undefined once the server closed the connection) and whether
 * the connection is still open after the last.
 */
export async function sendOnOneConnection(
  port: number,
  requests: readonly string[],
): Promise<{ answers: (string | undefined)[]; open: boolean }> {
  const socket = connect(port, "127.0.0.1");
  socket.on("error", () => undefined);
  await new Promise((resolve) => socket.once("connect", resolve));
  const answers: (string | undefined)[] = [];
  try {
    for (const request of requests) {
      if (socket.destroyed) {
        answers.push(undefined);
        continue;
      }
      const answer = nextResponse(socket);
      socket.write(request);
      answers.push(await answer);
    }
    return { answers, open: !socket.destroyed && !socket.readableEnded };
  } finally {
    socket.destroy();
  }
}

/** What a client sending a body without end saw. */
export interface Flooded {
  /** Everything the server sent. */
  readonly answer: string;
  /** Whether the server closed the connection before the client gave up. */
  readonly closed: boolean;
  /** Body bytes written before the connection closed (or the client gave up). */
  readonly sent: number;
}

/**
 * Sends `head` on a raw socket to 127.0.0.1:`port`, then body bytes as fast as the server takes
 * them (64 KiB at a time, as HTTP chunks when `chunked`), until the server closes the connection
 * or `giveUpBytes` were sent.
 */
export async function floodBody(port: number, head: string, chunked: boolean, giveUpBytes = 32 * 1024 * 1024): Promise<Flooded> {
  const socket = connect(port, "127.0.0.1");
  let answer = "";
  let closed = false;
  const gone = new Promise<void>((resolve) => socket.once("close", resolve));
  socket.on("data", (chunk: Buffer) => (answer += chunk.toString("utf8")));
  socket.on("close", () => (closed = true));
  socket.on("error", () => undefined);
  const block = Buffer.alloc(64 * 1024, " ");
  const frame = chunked ? Buffer.concat([Buffer.from(`${block.length.toString(16)}\r\n`), block, Buffer.from("\r\n")]) : block;
  let sent = 0;
  try {
    socket.write(head);
    while (!closed && sent < giveUpBytes) {
      sent += block.length;
      if (!socket.write(frame)) await Promise.race([new Promise((resolve) => socket.once("drain", resolve)), gone]);
    }
    if (closed) await gone;
    return { answer, closed, sent };
  } finally {
    socket.destroy();
  }
}

/**
 * Sends `request` twice on one raw socket to 127.0.0.1:`port`: the first answer's status and
 * `connection` header, the second answer (undefined when the server had closed the connection),
 * and whether the connection is still open after it.
 */
export async function askTwice(
  port: number,
  request: string,
): Promise<{ status: number | undefined; connection: string | undefined; second: string | undefined; open: boolean }> {
  const { answers, open } = await sendOnOneConnection(port, [request, request]);
  const [first, second] = answers;
  const status = first === undefined ? undefined : Number(/^HTTP\/1\.1 (\d{3}) /.exec(first)?.[1]);
  const connection = first === undefined ? undefined : /\r\nconnection:\s*([^\r]*)/i.exec(first)?.[1]?.toLowerCase();
  return { status, connection, second, open };
}
