import { execFileSync } from "node:child_process";
import {
  linkSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  truncateSync,
  writeFileSync,
} from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DriverError, ErrCode, findError } from "@adaptor/errors";
import { afterEach, describe, expect, it } from "vitest";
import {
  appendSessionFile,
  appendSessionLine,
  checkSessionFolders,
  confirmSessionFolder,
  createSessionFile,
  partFrom,
  readSessionFile,
  readSessionFileFrom,
  SESSION_FILE_LIMIT_BYTES,
  unlinkPlantedLinks,
  writeSessionFile,
} from "./session-files.js";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function file(content: string): string {
  const dir = mkdtempSync(join(tmpdir(), "adaptor-session-files-"));
  dirs.push(dir);
  const path = join(dir, "s.jsonl");
  writeFileSync(path, content, { mode: 0o600 });
  return path;
}

describe("session files read from an offset and appended to", () => {
  it("readSessionFileFrom gives the length and the bytes from the offset, as the whole read cut there", async () => {
    const path = file("one\ntwo\nthree\n");
    const whole = (await readSessionFile(path, () => true))!;
    for (const offset of [0, 4, 8, 14, 20]) {
      const { identity, ...part } = (await readSessionFileFrom(path, offset, () => true))!;
      expect(typeof identity).toBe("string");
      expect(part).toEqual(partFrom({ bytes: whole.byteLength, offset: 0, content: whole }, offset));
      expect(part).toEqual({ bytes: 14, offset: Math.min(offset, 14), content: whole.subarray(Math.min(offset, 14)) });
    }
    expect(await readSessionFileFrom(join(path, "..", "missing.jsonl"), 0, () => true)).toBeUndefined();
    await expect(readSessionFileFrom(path, -1, () => true)).rejects.toThrow(RangeError);
  });

  it("a part's identity stays while the file is untouched and changes with a same-length write in place", async () => {
    const path = file("first prompt\nsecond\n");
    const first = await readSessionFileFrom(path, 15, () => true);
    expect((await readSessionFileFrom(path, 0, () => true))?.identity).toBe(first?.identity);
    writeFileSync(path, `${" ".repeat(12)}\nsecond\n`, { flag: "r+" });
    const after = await readSessionFileFrom(path, 15, () => true);
    expect(after?.bytes).toBe(first?.bytes);
    expect(after?.identity).not.toBe(first?.identity);
    expect(partFrom(after!, 3).identity).toBe(after?.identity);
  });

  it("the marker is looked for in the bytes from the offset; a file shorter than the offset comes back at once", async () => {
    const path = file('{"uuid":"a"}\n{"uuid":"b"}\n');
    const has = (id: string) => (content: Buffer) => content.includes(`"uuid":"${id}"`);
    expect((await readSessionFileFrom(path, 13, has("b")))?.content.toString()).toBe('{"uuid":"b"}\n');
    expect(await readSessionFileFrom(path, 100, has("z"))).toMatchObject({ bytes: 26, offset: 26, content: Buffer.alloc(0) });
  });

  it("a marker only before the offset is found in the whole file once the wait ends, as readSessionFile finds it", async () => {
    const path = file('{"uuid":"a"}\n{"uuid":"b"}\n');
    const has = (content: Buffer) => content.includes('"uuid":"a"');
    expect(await readSessionFileFrom(path, 13, has)).toMatchObject({ bytes: 26, offset: 13, content: Buffer.from('{"uuid":"b"}\n') });
    await expect(readSessionFileFrom(path, 13, (c) => c.includes("never"))).rejects.toThrow(/does not hold the checkpoint's last entry/);
  }, 30_000);

  it("appendSessionFile writes at the offset, replaces what follows, keeps what is before and the mode", async () => {
    const path = file("one\ntwo\nlater entries\n");
    await appendSessionFile(path, 8, Buffer.from("three\n"));
    expect(readFileSync(path, "utf8")).toBe("one\ntwo\nthree\n");
    await appendSessionFile(path, 14, Buffer.from("four\n"));
    expect(readFileSync(path, "utf8")).toBe("one\ntwo\nthree\nfour\n");
    expect(statSync(path).mode & 0o777).toBe(0o600);
    await expect(appendSessionFile(path, 100, Buffer.from("x"))).rejects.toThrow(/shorter than the 100/);
    expect(readFileSync(path, "utf8")).toBe("one\ntwo\nthree\nfour\n");
    await expect(appendSessionFile(join(path, "..", "missing.jsonl"), 0, Buffer.from("x"))).rejects.toMatchObject({ code: "ENOENT" });
  });
});

describe("session files that are not plain files are refused, never waited on", () => {
  const servers: Server[] = [];
  afterEach(async () => {
    for (const server of servers.splice(0)) await new Promise((done) => server.close(done));
  });

  /** A path in a fresh folder, with `make` putting something there. */
  async function at(make: (path: string) => void | Promise<void>): Promise<string> {
    const path = join(file("x"), "..", "s2.jsonl");
    await make(path);
    return path;
  }
  const kinds: Record<string, (path: string) => void | Promise<void>> = {
    FIFO: (path) => void execFileSync("mkfifo", [path]),
    directory: (path) => mkdirSync(path),
    socket: (path) =>
      new Promise<void>((done) => {
        const server = createServer();
        servers.push(server);
        server.listen(path, done);
      }),
    "symbolic link to /dev/zero": (path) => symlinkSync("/dev/zero", path),
  };
  const code = (kind: string) => (kind === "directory" ? ErrCode.IsDirectory : ErrCode.Invalid);

  for (const [kind, make] of Object.entries(kinds)) {
    it(`a ${kind} in place of a session file: DriverError ${code(kind)} from every read and the append, at once`, async () => {
      const path = await at(make);
      for (const [what, call] of [
        ["readSessionFile", () => readSessionFile(path, () => true)],
        ["readSessionFileFrom", () => readSessionFileFrom(path, 0, () => true)],
        ["readSessionFileFrom (lengths only)", () => readSessionFileFrom(path, Number.MAX_SAFE_INTEGER, () => true)],
        ["appendSessionFile", () => appendSessionFile(path, 0, Buffer.from("x"))],
      ] as const) {
        const error = await (call() as Promise<unknown>).then(
          () => undefined,
          (e: unknown) => e,
        );
        const driverError = findError(error, DriverError);
        expect(driverError?.code, `${what}: ${String(error)}`).toBe(code(kind));
        expect(driverError?.device).toBe(path);
      }
    });
  }

  it("a session file over SESSION_FILE_LIMIT_BYTES (a sparse 2 GiB transcript) is refused by its length, RESOURCE_EXHAUSTED", async () => {
    const path = file('{"uuid":"a"}\n');
    truncateSync(path, 2 * 1024 ** 3);
    for (const call of [() => readSessionFile(path, () => true), () => readSessionFileFrom(path, 13, () => true)]) {
      const error = findError(await call().catch((e: unknown) => e), DriverError);
      expect(error?.code).toBe(ErrCode.ResourceExhausted);
      expect(error?.message).toContain(`${2 * 1024 ** 3} bytes, over the limit of ${SESSION_FILE_LIMIT_BYTES}`);
    }
    truncateSync(path, SESSION_FILE_LIMIT_BYTES + 1);
    expect(findError(await readSessionFileFrom(path, 0, () => true).catch((e: unknown) => e), DriverError)?.code).toBe(
      ErrCode.ResourceExhausted,
    );
  });

  it("a file longer than one read chunk is read whole, from an offset too", async () => {
    const path = file("head\n");
    truncateSync(path, 20 * 1024 * 1024);
    writeFileSync(path, "tail\n", { flag: "a" });
    const whole = (await readSessionFile(path, (content) => content.includes("tail")))!;
    expect(whole.byteLength).toBe(20 * 1024 * 1024 + 5);
    expect(whole.subarray(0, 5).toString()).toBe("head\n");
    expect(whole.subarray(-5).toString()).toBe("tail\n");
    const part = (await readSessionFileFrom(path, 3, () => true))!;
    expect(part.content.equals(whole.subarray(3))).toBe(true);
  });
});

describe("unlinkPlantedLinks", () => {
  it("removes a symbolic link and a hard link in place of a session file (never what they lead to), leaves a regular file of its own and a directory, and ignores a missing path", async () => {
    const victim = file("VICTIM\n");
    const dir = join(victim, "..");
    const link = join(dir, "link.jsonl");
    symlinkSync(victim, link);
    const dangling = join(dir, "dangling.jsonl");
    symlinkSync(join(dir, "nowhere"), dangling);
    const hard = join(dir, "hard.jsonl");
    linkSync(victim, hard);
    const regular = join(dir, "regular.jsonl");
    writeFileSync(regular, "mine\n");
    const folder = join(dir, "folder.jsonl");
    mkdirSync(folder);
    await unlinkPlantedLinks(dir, [link, dangling, hard, regular, folder, join(dir, "missing.jsonl")]);
    // lstat: the links themselves are gone (existsSync would follow them).
    expect(() => lstatSync(link)).toThrow(/ENOENT/);
    expect(() => lstatSync(dangling)).toThrow(/ENOENT/);
    expect(() => lstatSync(hard)).toThrow(/ENOENT/);
    expect(readFileSync(victim, "utf8")).toBe("VICTIM\n");
    expect(statSync(victim).nlink).toBe(1);
    expect(readFileSync(regular, "utf8")).toBe("mine\n");
    expect(statSync(folder).isDirectory()).toBe(true);
  });

  it("removes a symbolic link in place of a folder between the CLI home and a session file, leaving what it leads to; the home itself may be a link", async () => {
    const outside = join(file("x"), "..");
    writeFileSync(join(outside, "s.jsonl"), "OUTSIDE\n");
    const real = join(file("y"), "..");
    const home = join(real, "home-link");
    symlinkSync(real, home);
    mkdirSync(join(home, "projects"));
    const folder = join(home, "projects", "slug");
    symlinkSync(outside, folder);
    await unlinkPlantedLinks(home, [join(folder, "s.jsonl")]);
    expect(() => lstatSync(folder)).toThrow(/ENOENT/);
    expect(readFileSync(join(outside, "s.jsonl"), "utf8")).toBe("OUTSIDE\n");
    expect(lstatSync(home).isSymbolicLink()).toBe(true);
  });
});

describe("writeSessionFile", () => {
  it("moves a directory (with what it holds) in the session file's place aside, beside it, and writes the file", async () => {
    const path = file("old\n");
    const dir = join(path, "..");
    rmSync(path);
    mkdirSync(path);
    writeFileSync(join(path, "kept"), "theirs\n");
    await writeSessionFile(path, Buffer.from("stored\n"));
    expect(readFileSync(path, "utf8")).toBe("stored\n");
    expect(lstatSync(path).isFile()).toBe(true);
    const aside = readdirSync(dir).filter((name) => name !== "s.jsonl");
    expect(aside).toEqual([expect.stringMatching(/^\.s\.jsonl\.adaptor-displaced-[0-9a-f-]{36}$/)]);
    expect(readFileSync(join(dir, aside[0]!, "kept"), "utf8")).toBe("theirs\n");
  });

  it("writes over a regular file and a symbolic link in place (the link itself, never what it leads to), leaving no temp file", async () => {
    const victim = file("VICTIM\n");
    const dir = join(victim, "..");
    const link = join(dir, "link.jsonl");
    symlinkSync(victim, link);
    await writeSessionFile(link, Buffer.from("stored\n"));
    await writeSessionFile(victim, Buffer.from("mine\n"));
    expect(lstatSync(link).isFile()).toBe(true);
    expect(readFileSync(link, "utf8")).toBe("stored\n");
    expect(readFileSync(victim, "utf8")).toBe("mine\n");
    expect(readdirSync(dir).sort()).toEqual(["link.jsonl", "s.jsonl"]);
  });
});

describe("checkSessionFolders and hard links", () => {
  it("refuses a session file below a symbolic link planted in place of a folder, and passes real folders, a linked home and a missing folder", async () => {
    const outside = join(file("x"), "..");
    const real = join(file("y"), "..");
    const home = join(real, "home-link");
    symlinkSync(real, home);
    mkdirSync(join(home, "projects"));
    symlinkSync(outside, join(home, "projects", "slug"));
    const err = await checkSessionFolders(home, join(home, "projects", "slug", "s.jsonl")).catch((e: unknown) => e);
    expect(findError(err, DriverError)?.code).toBe(ErrCode.Invalid);
    await expect(checkSessionFolders(home, join(home, "projects", "s.jsonl"))).resolves.toBeUndefined();
    await expect(checkSessionFolders(home, join(home, "gone", "deeper", "s.jsonl"))).resolves.toBeUndefined();
  });

  it("refuses to read or append to a session file with more than one name", async () => {
    const path = file("line\n");
    linkSync(path, `${path}.other`);
    for (const err of [
      await readSessionFile(path, () => true).catch((e: unknown) => e),
      await readSessionFileFrom(path, 0, () => true).catch((e: unknown) => e),
      await appendSessionFile(path, 5, Buffer.from("more\n")).catch((e: unknown) => e),
    ])
      expect(findError(err, DriverError)?.code).toBe(ErrCode.Invalid);
    expect(readFileSync(`${path}.other`, "utf8")).toBe("line\n");
  });
});

describe("a folder swapped for a link after checkSessionFolders looked", () => {
  /** A home (itself a link to a real folder) whose `projects/slug` is a link to a folder outside it holding `s.jsonl`. */
  function plantedHome() {
    const outsideFile = file("outside\n");
    const outside = join(outsideFile, "..");
    const real = join(file("y"), "..");
    const home = join(real, "home-link");
    symlinkSync(real, home);
    mkdirSync(join(home, "projects", "own"), { recursive: true });
    symlinkSync(outside, join(home, "projects", "slug"));
    return { home, outside, outsideFile, path: join(home, "projects", "slug", "s.jsonl") };
  }

  it("confirmSessionFolder refuses a folder that resolves outside the home and passes one below a linked home", async () => {
    const { home, path } = plantedHome();
    const err = await confirmSessionFolder(home, path, "op").catch((e: unknown) => e);
    expect(findError(err, DriverError)?.code).toBe(ErrCode.Invalid);
    await expect(confirmSessionFolder(home, join(home, "projects", "own", "s.jsonl"), "op")).resolves.toBeUndefined();
  });

  it("writeSessionFile with its home refuses before the rename, removing its temp file; appendSessionLine with its home writes nothing", async () => {
    const { home, outside, outsideFile, path } = plantedHome();
    const written = await writeSessionFile(path, Buffer.from("title"), [], { root: home, op: "op" }).catch((e: unknown) => e);
    expect(findError(written, DriverError)?.code).toBe(ErrCode.Invalid);
    expect(readdirSync(outside).sort()).toEqual(["s.jsonl"]);
    const appended = await appendSessionLine(path, "entry", "op", home).catch((e: unknown) => e);
    expect(findError(appended, DriverError)?.code).toBe(ErrCode.Invalid);
    expect(readFileSync(outsideFile, "utf8")).toBe("outside\n");
    const own = join(home, "projects", "own", "t.json");
    await writeSessionFile(own, Buffer.from("title"), [], { root: home, op: "op" });
    expect(await appendSessionLine(own, "entry", "op", home)).toBe(true);
    expect(readFileSync(own, "utf8")).toBe("title\nentry\n");
  });
});

describe("appendSessionLine", () => {
  it("appends one line after the last, adds the newline a torn last line lacks, and writes nothing to a missing or empty file", async () => {
    const path = file('{"a":1}\n');
    expect(await appendSessionLine(path, '{"b":2}', "test")).toBe(true);
    expect(readFileSync(path, "utf8")).toBe('{"a":1}\n{"b":2}\n');
    const torn = file('{"a":1}\n{"half');
    expect(await appendSessionLine(torn, '{"c":3}', "test")).toBe(true);
    expect(readFileSync(torn, "utf8")).toBe('{"a":1}\n{"half\n{"c":3}\n');
    const empty = file("");
    expect(await appendSessionLine(empty, '{"d":4}', "test")).toBe(false);
    expect(readFileSync(empty, "utf8")).toBe("");
    expect(await appendSessionLine(join(empty, "..", "missing.jsonl"), '{"e":5}', "test")).toBe(false);
    await expect(appendSessionLine(path, "two\nlines", "test")).rejects.toThrow(TypeError);
  });

  it("lines appended through many handles at once all land whole, none overwritten (each open is its own O_APPEND writer)", async () => {
    const path = file('{"start":true}\n');
    const ours = Array.from({ length: 50 }, (_, i) => appendSessionLine(path, JSON.stringify({ ours: i }), "test"));
    const theirs = Array.from({ length: 50 }, (_, i) =>
      appendSessionLine(path, JSON.stringify({ theirs: i, pad: "x".repeat(4096) }), "test"),
    );
    await Promise.all([...ours, ...theirs]);
    const lines = readFileSync(path, "utf8")
      .trimEnd()
      .split("\n")
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines).toHaveLength(101);
    expect(lines.filter((line) => "ours" in line)).toHaveLength(50);
    expect(lines.filter((line) => "theirs" in line)).toHaveLength(50);
  });

  it("refuses a symbolic link, a hard link and a directory in place of the file (DriverError), writing nothing", async () => {
    const victim = file('{"v":1}\n');
    const dir = mkdtempSync(join(tmpdir(), "adaptor-session-line-"));
    dirs.push(dir);
    const link = join(dir, "link.jsonl");
    symlinkSync(victim, link);
    const hard = join(dir, "hard.jsonl");
    linkSync(victim, hard);
    for (const path of [link, hard, dir]) {
      const err = findError(await appendSessionLine(path, '{"x":1}', "test").catch((e: unknown) => e), DriverError);
      expect(err?.code).toMatch(new RegExp(`^(${ErrCode.Invalid}|${ErrCode.IsDirectory})$`));
    }
    expect(readFileSync(victim, "utf8")).toBe('{"v":1}\n');
  });
});

describe("createSessionFile", () => {
  it("creates a new file (mode 0600) with the bytes; anything already at the path (a file, a link, a FIFO) is EEXIST, left as it was", async () => {
    const existing = file("kept\n");
    const home = join(existing, "..");
    const fresh = join(home, "new.jsonl");
    await createSessionFile(fresh, Buffer.from("one\ntwo\n"), home, "op");
    expect(readFileSync(fresh, "utf8")).toBe("one\ntwo\n");
    expect(statSync(fresh).mode & 0o777).toBe(0o600);
    const target = file("target\n");
    const linked = join(home, "linked.jsonl");
    symlinkSync(target, linked);
    const fifo = join(home, "fifo.jsonl");
    execFileSync("mkfifo", [fifo]);
    for (const path of [existing, fresh, linked, fifo])
      expect(((await createSessionFile(path, Buffer.from("x"), home, "op").catch((e: unknown) => e)) as NodeJS.ErrnoException).code).toBe(
        "EEXIST",
      );
    expect(readFileSync(existing, "utf8")).toBe("kept\n");
    expect(readFileSync(target, "utf8")).toBe("target\n");
    expect(lstatSync(fifo).isFIFO()).toBe(true);
  });

  it("refuses a folder on the way that is a link out of the home (DriverError INVALID), creating nothing there", async () => {
    const outside = join(file("x"), "..");
    const real = join(file("y"), "..");
    const home = join(real, "home-link");
    symlinkSync(real, home);
    mkdirSync(join(home, "projects"));
    symlinkSync(outside, join(home, "projects", "slug"));
    const err = await createSessionFile(join(home, "projects", "slug", "new.jsonl"), Buffer.from("x"), home, "op").catch((e: unknown) => e);
    expect(findError(err, DriverError)?.code).toBe(ErrCode.Invalid);
    expect(readdirSync(outside)).toEqual(["s.jsonl"]);
  });
});
