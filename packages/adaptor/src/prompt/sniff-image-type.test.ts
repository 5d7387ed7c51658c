import { describe, expect, it } from "vitest";
import { sniffImageType } from "./sniff-image-type.js";

const bytes = (...values: number[]): Uint8Array => new Uint8Array(values);

describe("sniffImageType", () => {
  it("names PNG, JPEG, GIF and WebP by their first bytes (a WebP's size bytes are anything)", () => {
    expect(sniffImageType(bytes(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0))).toBe("image/png");
    expect(sniffImageType(bytes(0xff, 0xd8, 0xff, 0xe0))).toBe("image/jpeg");
    expect(sniffImageType(bytes(0x47, 0x49, 0x46, 0x38, 0x39, 0x61))).toBe("image/gif");
    expect(sniffImageType(bytes(0x52, 0x49, 0x46, 0x46, 1, 2, 3, 4, 0x57, 0x45, 0x42, 0x50))).toBe("image/webp");
  });

  it("names nothing for other bytes, a RIFF that is not WebP, or a cut-off signature", () => {
    expect(sniffImageType(bytes(0x25, 0x50, 0x44, 0x46))).toBeUndefined();
    expect(sniffImageType(bytes(0x52, 0x49, 0x46, 0x46, 1, 2, 3, 4, 0x41, 0x56, 0x49, 0x20))).toBeUndefined();
    expect(sniffImageType(bytes(0x89, 0x50, 0x4e, 0x47))).toBeUndefined();
    expect(sniffImageType(bytes())).toBeUndefined();
  });
});
