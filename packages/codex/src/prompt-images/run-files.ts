import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * The files one run hands codex (an output schema, replaced instructions, copies of prompt
 * images): written, readable by the owner only, in one private folder made on the first write;
 * {@link RunFiles.remove} removes the folder once the run ended.
 */
export class RunFiles {
  #dir: Promise<string> | undefined;
  #written = 0;

  /** Writes `data` into a new file named after `name` (made unique within the run); resolves with its absolute path. */
  async write(name: string, data: string | Uint8Array): Promise<string> {
    this.#dir ??= mkdtemp(join(tmpdir(), "adaptor-codex-run-"));
    const path = join(await this.#dir, `${this.#written++}-${name}`);
    await writeFile(path, data, { mode: 0o600 });
    return path;
  }

  /** Removes the folder and all it holds; nothing when nothing was written. Never rejects. */
  async remove(): Promise<void> {
    const dir = await this.#dir?.catch(() => undefined);
    this.#dir = undefined;
    if (dir) await rm(dir, { recursive: true, force: true }).catch(() => undefined);
  }
}
