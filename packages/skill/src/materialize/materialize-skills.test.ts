import { existsSync, readFileSync, readdirSync, statSync } from "node:fs";
import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { Header } from "tar";
import yazl from "yazl";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ErrInvalidOption, findError, InvalidOptionError, isError } from "@adaptor/errors";
import {
  ErrSkillMaterializationFailed,
  SkillMaterializationError,
  materializeSkills,
  resolveSkills,
  skillArchive,
  skillDir,
  skillInline,
  type SkillArchiveOptions,
  type SkillSpec,
} from "../index.js";

// Archives are built in memory: tar with node-tar's Header (so any path or type can be written),
// zip with yazl (then patched for names yazl itself refuses).

interface TarEntry {
  readonly path: string;
  readonly content?: string;
  readonly type?: "File" | "Directory" | "SymbolicLink" | "Link";
  readonly linkpath?: string;
}

function tarBytes(entries: readonly TarEntry[]): Buffer {
  const blocks: Buffer[] = [];
  for (const entry of entries) {
    const data = Buffer.from(entry.content ?? "");
    const type = entry.type ?? "File";
    const header = new Header({
      path: entry.path,
      type,
      mode: type === "Directory" ? 0o755 : 0o644,
      size: type === "File" ? data.length : 0,
      mtime: new Date(0),
      ...(entry.linkpath ? { linkpath: entry.linkpath } : {}),
    });
    const block = Buffer.alloc(512);
    header.encode(block, 0);
    blocks.push(block);
    if (type === "File" && data.length > 0) blocks.push(data, Buffer.alloc((512 - (data.length % 512)) % 512));
  }
  blocks.push(Buffer.alloc(1024));
  return Buffer.concat(blocks);
}

async function zipBytes(entries: readonly { path: string; content: string; mode?: number }[]): Promise<Buffer> {
  const zip = new yazl.ZipFile();
  for (const entry of entries) zip.addBuffer(Buffer.from(entry.content), entry.path, entry.mode ? { mode: entry.mode } : {});
  zip.end();
  const chunks: Buffer[] = [];
  for await (const chunk of zip.outputStream as AsyncIterable<Buffer>) chunks.push(chunk);
  return Buffer.concat(chunks);
}

const SKILL_MD = "---\nname: kit\ndescription: A kit\n---\n\nUse the kit.\n";

let work: string;
let staging: string;
beforeEach(async () => {
  work = await mkdtemp(join(tmpdir(), "skill-test-"));
  staging = join(work, "staging");
  await mkdir(staging);
});
afterEach(async () => {
  await rm(work, { recursive: true, force: true });
});

async function materialize(specs: readonly SkillSpec[]) {
  return materializeSkills(await resolveSkills(specs), { tmpDir: staging });
}

async function failure(specs: readonly SkillSpec[]): Promise<SkillMaterializationError> {
  try {
    const staged = await materialize(specs);
    await staged.cleanup();
  } catch (error) {
    expect(isError(error, ErrSkillMaterializationFailed)).toBe(true);
    const typed = findError(error, SkillMaterializationError);
    expect(typed).toBeDefined();
    expect(typed?.cause).toBeDefined();
    // Whatever was staged before the failure is gone.
    expect(readdirSync(staging)).toEqual([]);
    return typed as SkillMaterializationError;
  }
  throw new Error("expected SkillMaterializationError");
}

const archive = async (bytes: Buffer, name: string, options: SkillArchiveOptions = {}) => {
  const path = join(work, name);
  await writeFile(path, bytes);
  return skillArchive(path, options);
};

describe("materializeSkills: each source kind", () => {
  it("dir: used in place, never copied; staging root stays unset", async () => {
    const dir = join(work, "review");
    await mkdir(dir);
    await writeFile(join(dir, "SKILL.md"), SKILL_MD);
    const staged = await materialize([skillDir(dir)]);
    expect(staged.skills).toEqual([{ key: "review", name: "review", dir, required: false }]);
    expect(staged.root).toBeUndefined();
    await staged.cleanup();
    expect(existsSync(join(dir, "SKILL.md"))).toBe(true);
  });

  it("inline: SKILL.md with front matter and body, extra files; cleanup removes all of it", async () => {
    const staged = await materialize([
      skillInline({
        name: "house-style",
        description: "Our commit\nmessage rules",
        body: "Write in the imperative.",
        files: { "scripts/check.sh": "#!/bin/sh\nexit 0\n", "data.bin": new Uint8Array([0, 1, 2]) },
      }),
    ]);
    const skill = staged.skills[0];
    expect(skill?.name).toBe("house-style");
    const dir = skill?.dir ?? "";
    expect(readFileSync(join(dir, "SKILL.md"), "utf8")).toBe(
      '---\nname: house-style\ndescription: "Our commit message rules"\n---\n\nWrite in the imperative.\n',
    );
    expect(readFileSync(join(dir, "scripts/check.sh"), "utf8")).toContain("exit 0");
    expect([...readFileSync(join(dir, "data.bin"))]).toEqual([0, 1, 2]);
    expect(staged.root && statSync(staged.root).mode & 0o777).toBe(0o700);
    await staged.cleanup();
    expect(existsSync(dir)).toBe(false);
    expect(readdirSync(staging)).toEqual([]);
  });

  it("zip, tar and tar.gz archives (path and bytes), root or single top-level folder or subpath", async () => {
    const zip = await zipBytes([
      { path: "SKILL.md", content: SKILL_MD },
      { path: "ref/notes.md", content: "notes" },
    ]);
    const tar = tarBytes([
      { path: "kit/", type: "Directory" },
      { path: "kit/SKILL.md", content: SKILL_MD },
      { path: "kit/a.txt", content: "a" },
    ]);
    const nested = tarBytes([
      { path: "pkg/skills/deep/SKILL.md", content: SKILL_MD },
      { path: "pkg/README", content: "x" },
    ]);
    const staged = await materialize([
      await archive(zip, "zipkit.zip"),
      await archive(tar, "tarkit.tar"),
      await archive(gzipSync(tar), "tgzkit.tgz"),
      skillArchive(gzipSync(tar), { key: "bytes-kit" }),
      await archive(nested, "nested.tar", { subpath: "pkg/skills/deep" }),
    ]);
    expect(staged.skills.map((skill) => skill.key)).toEqual(["zipkit", "tarkit", "tgzkit", "bytes-kit", "nested"]);
    for (const skill of staged.skills) expect(readFileSync(join(skill.dir, "SKILL.md"), "utf8")).toBe(SKILL_MD);
    expect(readFileSync(join(staged.skills[0]?.dir ?? "", "ref/notes.md"), "utf8")).toBe("notes");
    expect(staged.skills[1]?.dir.endsWith(join("tarkit", "kit"))).toBe(true);
    // The private copies of the archives are gone; only the unpacked skills remain.
    expect(readdirSync(staged.root ?? "").sort()).toEqual(["bytes-kit", "nested", "tarkit", "tgzkit", "zipkit"]);
    await staged.cleanup();
    expect(readdirSync(staging)).toEqual([]);
  });
});

describe("materializeSkills: failures → SkillMaterializationError { key, runtimeName, cause }", () => {
  it("dir without SKILL.md, and a missing dir", async () => {
    const empty = join(work, "empty");
    await mkdir(empty);
    const error = await failure([skillDir(empty)]);
    expect(error.key).toBe("empty");
    expect(error.runtimeName).toBe("empty");
    expect(error.message).toContain("has no SKILL.md");
    const missing = await failure([skillDir(join(work, "nope"))]);
    expect((missing.cause as NodeJS.ErrnoException).code).toBe("ENOENT");
  });

  it("dir holding a FIFO or a socket, at its root or deeper: refused before any driver copies it", async () => {
    const fifoDir = join(work, "piped");
    await mkdir(join(fifoDir, "deep"), { recursive: true });
    await writeFile(join(fifoDir, "SKILL.md"), SKILL_MD);
    execFileSync("mkfifo", [join(fifoDir, "deep", "pipe")]);
    const fifo = await failure([skillDir(fifoDir)]);
    expect(fifo.key).toBe("piped");
    expect(fifo.message).toContain(`${join(fifoDir, "deep", "pipe")} is a FIFO`);
    const socketDir = join(work, "socketed");
    await mkdir(socketDir);
    await writeFile(join(socketDir, "SKILL.md"), SKILL_MD);
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(join(socketDir, "sock"), resolve));
    try {
      const socket = await failure([skillDir(socketDir)]);
      expect(socket.message).toContain(`${join(socketDir, "sock")} is a socket`);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it("dir holding symbolic links (to a FIFO, to itself): kept, as staging copies links as links", async () => {
    const dir = join(work, "linked");
    await mkdir(dir);
    await writeFile(join(dir, "SKILL.md"), SKILL_MD);
    execFileSync("mkfifo", [join(work, "outside-pipe")]);
    await symlink(join(work, "outside-pipe"), join(dir, "pipe"));
    await symlink(dir, join(dir, "self"));
    const staged = await materialize([skillDir(dir)]);
    expect(staged.skills.map((skill) => skill.dir)).toEqual([dir]);
    await staged.cleanup();
  });

  it("a later failure removes what earlier skills staged", async () => {
    const error = await failure([
      skillInline({ name: "ok", description: "d", body: "b" }),
      skillArchive(Buffer.from("not an archive at all"), { key: "junk" }),
    ]);
    expect(error.key).toBe("junk");
    expect(error.message).toContain("unrecognised archive format");
  });

  it("inline: no description, a traversing file path, a file named SKILL.md", async () => {
    expect((await failure([skillInline({ name: "a", description: " ", body: "b" })])).cause).toBeInstanceOf(TypeError);
    const traversal = await failure([skillInline({ name: "a", description: "d", body: "b", files: { "../x": "y" } })]);
    expect(traversal.message).toContain("path traversal");
    expect((await failure([skillInline({ name: "a", description: "d", body: "b", files: { "SKILL.md": "y" } })])).message).toContain(
      "generated",
    );
  });

  it("tar path traversal (..), absolute paths, symlinks and hard links are refused before extraction", async () => {
    const cases: [TarEntry[], string][] = [
      [[{ path: "../evil.txt", content: "x" }], "path traversal"],
      [[{ path: "kit/../../evil.txt", content: "x" }], "path traversal"],
      [[{ path: "/etc/evil", content: "x" }], "absolute path"],
      [[{ path: "link", type: "SymbolicLink", linkpath: "/etc/passwd" }], "SymbolicLink entries are refused"],
      [[{ path: "hard", type: "Link", linkpath: "SKILL.md" }], "Link entries are refused"],
    ];
    for (const [entries, message] of cases) {
      const error = await failure([await archive(tarBytes([{ path: "SKILL.md", content: SKILL_MD }, ...entries]), "bad.tar")]);
      expect(error.message).toContain(message);
      expect(existsSync(join(work, "evil.txt"))).toBe(false);
    }
  });

  it("zip path traversal, absolute names and symlinks are refused", async () => {
    // yazl refuses such names itself, so write a same-length safe name and patch the bytes.
    const traversal = await zipBytes([
      { path: "SKILL.md", content: SKILL_MD },
      { path: "zz/evil.txt", content: "x" },
    ]);
    const patched = Buffer.from(traversal.toString("latin1").replaceAll("zz/evil.txt", "../evil.txt"), "latin1");
    expect((await failure([await archive(patched, "bad.zip")])).message).toContain("path traversal");
    const absolute = Buffer.from(traversal.toString("latin1").replaceAll("zz/evil.txt", "/z/evil.txt"), "latin1");
    expect((await failure([await archive(absolute, "abs.zip")])).message).toContain("absolute path");
    const symlink = await zipBytes([
      { path: "SKILL.md", content: SKILL_MD },
      { path: "link", content: "/etc/passwd", mode: 0o120777 },
    ]);
    expect((await failure([await archive(symlink, "link.zip")])).message).toContain("links are refused");
    expect(existsSync(join(work, "evil.txt"))).toBe(false);
  });

  it("entry count, total size and archive size limits (zip and tar)", async () => {
    const many = [{ path: "SKILL.md", content: SKILL_MD }, ...Array.from({ length: 5 }, (_, i) => ({ path: `f${i}.txt`, content: "x" }))];
    expect((await failure([await archive(await zipBytes(many), "many.zip", { limits: { maxEntries: 3 } })])).message).toContain(
      "limit maxEntries",
    );
    expect((await failure([await archive(tarBytes(many), "many.tar", { limits: { maxEntries: 3 } })])).message).toContain(
      "limit maxEntries",
    );
    const big = [
      { path: "SKILL.md", content: SKILL_MD },
      { path: "big.txt", content: "y".repeat(5000) },
    ];
    expect((await failure([await archive(await zipBytes(big), "big.zip", { limits: { maxTotalBytes: 1000 } })])).message).toContain(
      "limit maxTotalBytes",
    );
    expect((await failure([await archive(tarBytes(big), "big.tar", { limits: { maxTotalBytes: 1000 } })])).message).toContain(
      "limit maxTotalBytes",
    );
    expect((await failure([await archive(tarBytes(big), "huge.tar", { limits: { maxArchiveBytes: 100 } })])).message).toContain(
      "limit maxArchiveBytes",
    );
  });

  it.each([
    ["maxTotalBytes", Number.NaN],
    ["maxEntries", Number.NaN],
    ["maxArchiveBytes", Number.NaN],
    ["maxTotalBytes", Infinity],
    ["maxEntries", -1],
    ["maxEntries", 0],
    ["maxTotalBytes", 1.5],
    ["maxEntries", "10"],
  ])("a nonsense limit %s=%s is refused naming the field, never read as no limit", async (field, value) => {
    const ok = tarBytes([{ path: "SKILL.md", content: SKILL_MD }]);
    const error = await failure([await archive(ok, "kit.tar", { limits: { [field]: value } as never })]);
    const option = findError(error, InvalidOptionError);
    expect(option).toMatchObject({ subject: "skillArchive limits", field });
    expect(isError(error, ErrInvalidOption)).toBe(true);
    expect(error.message).toContain(`skillArchive limits: ${field} must be a positive integer, got`);
  });

  it("a misspelt limit is refused with the known name suggested", async () => {
    const ok = tarBytes([{ path: "SKILL.md", content: SKILL_MD }]);
    const error = await failure([await archive(ok, "kit.tar", { limits: { maxEntry: 3 } as never })]);
    expect(findError(error, InvalidOptionError)).toMatchObject({ field: "maxEntry", suggestion: "maxEntries" });
  });

  it("valid limits given as undefined take the defaults", async () => {
    const ok = tarBytes([{ path: "SKILL.md", content: SKILL_MD }]);
    const staged = await materialize([await archive(ok, "kit.tar", { limits: { maxEntries: undefined, maxTotalBytes: 10_000 } })]);
    expect(staged.skills).toHaveLength(1);
    await staged.cleanup();
  });

  it("a gzip bomb stops at the unpacked-size limit", async () => {
    const bomb = gzipSync(Buffer.alloc(20 * 1024 * 1024));
    expect(bomb.length).toBeLessThan(100 * 1024);
    const error = await failure([await archive(bomb, "bomb.tgz", { limits: { maxTotalBytes: 1024, maxEntries: 10 } })]);
    expect(error.message).toContain("gzip stream unpacks to more than");
  });

  it("an archive without SKILL.md", async () => {
    const error = await failure([
      await archive(
        tarBytes([
          { path: "a/README", content: "x" },
          { path: "b/README", content: "y" },
        ]),
        "none.tar",
      ),
    ]);
    expect(error.message).toContain("archive has no SKILL.md");
  });
});
