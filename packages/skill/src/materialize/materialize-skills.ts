import { constants, type Dirent } from "node:fs";
import { access, copyFile, lstat, mkdir, mkdtemp, open, readdir, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { SkillMaterializationError } from "../errors/skill-materialization-error.js";
import type { ResolvedSkill } from "../resolve/resolved-skill.js";
import type { SkillArchiveFormat, SkillArchiveSource, SkillInlineSource } from "../skill/skill.js";
import { archiveLimits } from "./archive-limits.js";
import type { MaterializedSkill, MaterializedSkills } from "./materialized-skills.js";
import { UnpackBudget, UnpackRefusal, checkEntryPath } from "./unpack-budget.js";

/** Options of {@link materializeSkills}. */
export interface MaterializeSkillsOptions {
  /** Parent of the private staging folder. Default `os.tmpdir()`. */
  readonly tmpDir?: string | undefined;
  /** Checked between skills and archive entries; an abort rejects with its reason after cleanup. */
  readonly signal?: AbortSignal | undefined;
}

const SKILL_MD = "SKILL.md";

/**
 * Makes every resolved skill available as a local folder holding `SKILL.md`: dir
 * skills are checked and used in place; inline skills are written and archives unpacked (with
 * limits) into one private 0700 staging folder under `tmpDir`. On any failure everything staged so
 * far is removed first.
 *
 * @throws SkillMaterializationError (matches `ErrSkillMaterializationFailed`) naming the key and
 * runtime name, the underlying error as `cause`: a dir without `SKILL.md`, an unreadable or
 * malformed archive, a limit or path rule broken while unpacking, an inline skill without a
 * description or with a bad file path, a dir holding a FIFO, a socket or a device (a driver could
 * not copy it), a file system error; `signal.reason` when aborted.
 */
export async function materializeSkills(
  skills: readonly ResolvedSkill[],
  options: MaterializeSkillsOptions = {},
): Promise<MaterializedSkills> {
  const signal = options.signal ?? new AbortController().signal;
  let root: string | undefined;
  let removing: Promise<void> | undefined;
  const cleanup = (): Promise<void> => {
    removing ??= root ? rm(root, { recursive: true, force: true, maxRetries: 3 }).catch(() => undefined) : Promise.resolve();
    return removing;
  };
  const staged: MaterializedSkill[] = [];
  try {
    for (const skill of skills) {
      signal.throwIfAborted();
      let dir: string;
      try {
        if (skill.source.kind === "dir") {
          dir = await checkSkillDir(skill.source.path);
        } else {
          root ??= await mkdtemp(join(options.tmpDir ?? tmpdir(), "adaptor-skills-"));
          const dest = join(root, skill.runtimeName);
          await mkdir(dest, { mode: 0o700 });
          dir =
            skill.source.kind === "inline"
              ? await writeInline(dest, skill.runtimeName, skill.source)
              : await unpackArchive(dest, join(root, `.${skill.runtimeName}.archive`), skill.source, signal);
        }
      } catch (error) {
        if (signal.aborted) throw signal.reason;
        throw new SkillMaterializationError(skill.key, skill.runtimeName, error);
      }
      staged.push(Object.freeze({ key: skill.key, name: skill.runtimeName, dir, required: skill.required }));
    }
  } catch (error) {
    await cleanup();
    throw error;
  }
  return Object.freeze({ skills: Object.freeze(staged), root, cleanup, [Symbol.asyncDispose]: cleanup });
}

/** The folder itself when it holds a `SKILL.md` file. */
async function checkSkillDir(path: string): Promise<string> {
  if (typeof path !== "string" || path.trim() === "") throw new TypeError("dir skill has an empty path");
  const info = await stat(path);
  if (!info.isDirectory()) throw new Error(`${path} is not a folder`);
  const skillMd = await stat(join(path, SKILL_MD)).catch((error: unknown) => {
    throw new Error(`${path} has no ${SKILL_MD}`, { cause: error });
  });
  if (!skillMd.isFile()) throw new Error(`${join(path, SKILL_MD)} is not a file`);
  await checkCopyable(path);
  return path;
}

/**
 * Throws when the tree under `dir` holds what a driver could not copy where its CLI loads skills
 * (it copies the folder, links as links, never following them): a FIFO, a socket, a device, an
 * unreadable file or folder. So the run fails here, before the driver runs, not in the driver.
 */
async function checkCopyable(dir: string): Promise<void> {
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) await checkCopyable(path);
    else if (entry.isFile()) await access(path, constants.R_OK);
    else if (!entry.isSymbolicLink()) throw new Error(`${path} is ${specialKind(entry)}: a skill holds files, folders and symbolic links`);
  }
}

/** What a special file is, for the message. */
function specialKind(entry: Dirent): string {
  if (entry.isFIFO()) return "a FIFO";
  if (entry.isSocket()) return "a socket";
  if (entry.isCharacterDevice()) return "a character device";
  if (entry.isBlockDevice()) return "a block device";
  return "not a regular file";
}

/** Writes SKILL.md (front matter, then the body) and the extra files into `dest`. */
async function writeInline(dest: string, name: string, source: SkillInlineSource): Promise<string> {
  if (typeof source.description !== "string" || source.description.trim() === "") {
    throw new TypeError("inline skill needs a non-empty description");
  }
  if (typeof source.body !== "string") throw new TypeError("inline skill body must be a string");
  const files = Object.entries(source.files ?? {});
  const budget = new UnpackBudget(archiveLimits(undefined));
  const paths = files.map(([path, content]) => {
    budget.entry();
    const normal = checkEntryPath(path);
    if (normal === SKILL_MD) throw new UnpackRefusal(`file ${JSON.stringify(path)}: SKILL.md is generated from description and body`);
    budget.bytes(typeof content === "string" ? Buffer.byteLength(content) : content.byteLength);
    return [normal, content] as const;
  });
  const frontMatter = `---\nname: ${name}\ndescription: ${JSON.stringify(source.description.replace(/\s+/g, " ").trim())}\n---\n\n`;
  await writeFile(join(dest, SKILL_MD), frontMatter + source.body + (source.body.endsWith("\n") ? "" : "\n"), { flag: "wx" });
  for (const [path, content] of paths) {
    await mkdir(dirname(join(dest, path)), { recursive: true });
    await writeFile(join(dest, path), content, { flag: "wx" });
  }
  return dest;
}

/** Copies (or writes) the archive next to `dest`, checks its size, sniffs its format, unpacks it, finds SKILL.md. */
async function unpackArchive(dest: string, copy: string, source: SkillArchiveSource, signal: AbortSignal): Promise<string> {
  const limits = archiveLimits(source.limits);
  if (typeof source.archive === "string") {
    const info = await stat(source.archive);
    if (!info.isFile()) throw new Error(`${source.archive} is not a file`);
    if (info.size > limits.maxArchiveBytes) {
      throw new UnpackRefusal(`archive is ${info.size} bytes, more than ${limits.maxArchiveBytes} (limit maxArchiveBytes)`);
    }
    // Unpack from a private copy, so the checked bytes are the extracted bytes.
    await copyFile(source.archive, copy);
  } else {
    if (source.archive.byteLength > limits.maxArchiveBytes) {
      throw new UnpackRefusal(`archive is ${source.archive.byteLength} bytes, more than ${limits.maxArchiveBytes} (limit maxArchiveBytes)`);
    }
    await writeFile(copy, source.archive, { flag: "wx", mode: 0o600 });
  }
  const format = source.format ?? (await sniffFormat(copy));
  const budget = new UnpackBudget(limits);
  // The unpackers (and their tar, zip and zlib modules) are loaded only for a skill archive.
  if (format === "zip") {
    const { extractZip } = await import("./extract-zip.js");
    await extractZip(copy, dest, budget, signal);
  } else {
    const { extractTar, gunzipTo } = await import("./extract-tar.js");
    let tarFile = copy;
    if (format === "tgz") {
      tarFile = `${copy}.tar`;
      // Headers and padding take at most 1.5 KiB per entry beyond the file bytes.
      await gunzipTo(copy, tarFile, limits.maxTotalBytes + (limits.maxEntries + 2) * 1536 + 1024 * 1024, signal);
    }
    await extractTar(tarFile, dest, budget, signal);
  }
  await rm(copy, { force: true });
  if (format === "tgz") await rm(`${copy}.tar`, { force: true });
  return findSkillRoot(dest, source.subpath);
}

/** zip (`PK\x03\x04` or an empty `PK\x05\x06`), gzip (`1f 8b`), or ustar (`ustar` at 257). */
async function sniffFormat(file: string): Promise<SkillArchiveFormat> {
  const handle = await open(file, "r");
  try {
    const head = Buffer.alloc(512);
    const { bytesRead } = await handle.read(head, 0, 512, 0);
    if (bytesRead >= 4 && head[0] === 0x50 && head[1] === 0x4b && (head[2] === 3 || head[2] === 5)) return "zip";
    if (bytesRead >= 2 && head[0] === 0x1f && head[1] === 0x8b) return "tgz";
    if (bytesRead >= 262 && head.toString("latin1", 257, 262) === "ustar") return "tar";
    throw new Error("unrecognised archive format (expected zip, tar or tar.gz)");
  } finally {
    await handle.close();
  }
}

/** `dest/subpath`, else `dest`, else its only top-level folder: the first that holds SKILL.md. */
async function findSkillRoot(dest: string, subpath: string | undefined): Promise<string> {
  const isFile = async (path: string): Promise<boolean> => (await lstat(path).catch(() => undefined))?.isFile() === true;
  if (subpath !== undefined && subpath !== "" && subpath !== ".") {
    const dir = join(dest, checkEntryPath(subpath));
    if (await isFile(join(dir, SKILL_MD))) return dir;
    throw new Error(`archive has no ${SKILL_MD} under ${JSON.stringify(subpath)}`);
  }
  if (await isFile(join(dest, SKILL_MD))) return dest;
  const top = await readdir(dest, { withFileTypes: true });
  const only = top.length === 1 ? top[0] : undefined;
  if (only?.isDirectory() && (await isFile(join(dest, only.name, SKILL_MD)))) return join(dest, only.name);
  throw new Error(`archive has no ${SKILL_MD} at its root or in a single top-level folder`);
}
