import { describe, expect, it } from "vitest";
import { keptOutput } from "./captured-output.js";
import { OutputBlockPool } from "./output-blocks.js";
import { OutputTail } from "./output-tail.js";

const SECRET = "sk-live-Zq9Wk3vT7pLm2Xr8Yb";

/** One finished window of `maxBytes` that was written `text`. */
function window(text: string, maxBytes = 1024 * 1024, spillAboveBytes?: number) {
  const tail = new OutputTail(maxBytes, { pool: new OutputBlockPool(), ...(spillAboveBytes !== undefined ? { spillAboveBytes } : {}) });
  tail.push(Buffer.from(text));
  return tail.takeKept();
}

describe("keptOutput with values to redact", () => {
  it("keeps only the redacted text once read: the window's decoded text is the redacted one too", () => {
    for (const spill of [undefined, 0]) {
      const stdout = window(`token ${SECRET}\n`, 1024 * 1024, spill);
      const output = keptOutput(stdout, window(""), [SECRET]);
      expect(output.stdout).toBe("token [redacted]\n");
      // The window itself holds no copy of the text with the secret.
      expect(stdout.output.text).toBe("token [redacted]\n");
      expect(output.stdout).toBe("token [redacted]\n");
    }
  });

  it("a window whose bound cut a value keeps no readable end of it: a suffix of 8 characters or more at the window's start is redacted", () => {
    const rest = "\nnext line\n";
    for (const kept of [SECRET.length - 1, 12, 8]) {
      // The window keeps the last `kept` characters of the secret and what follows it.
      const stdout = window(`prefix ${SECRET}${rest}`, kept + rest.length);
      expect(stdout.truncated).toBe(true);
      const output = keptOutput(stdout, window(""), [SECRET]);
      expect(output.stdout).toBe(`[redacted]${rest}`);
    }
    // Fewer than 8 characters are left as they are (too short to tell from ordinary text).
    expect(keptOutput(window(`prefix ${SECRET}${rest}`, 7 + rest.length), window(""), [SECRET]).stdout).toBe(`${SECRET.slice(-7)}${rest}`);
    // A window that was not cut is read as it is, even if it starts like the end of a value.
    expect(keptOutput(window(`${SECRET.slice(-12)}${rest}`), window(""), [SECRET]).stdout).toBe(`${SECRET.slice(-12)}${rest}`);
  });
});
