import type { Dirent } from "node:fs";
import { readdir } from "node:fs/promises";

/**
 * Entries of `dir` (a folder of the CLI home: `projects`, or one project's folder), or none when
 * it is missing or not a folder.
 * @throws the listing's other I/O errors (`EACCES`...).
 */
export async function entriesOf(dir: string): Promise<Dirent[]> {
  try {
    return await readdir(dir, { withFileTypes: true });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return [];
    throw error;
  }
}
