import { readFile } from "node:fs/promises";
import type { McpFixtureLogEntry } from "./mcp-fixture.js";

/** The entries of a fixture log file, in order; `[]` when the file does not exist yet. */
export async function readMcpFixtureLog(file: string): Promise<McpFixtureLogEntry[]> {
  const text = await readFile(file, "utf8").catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT") return "";
    throw error;
  });
  return text
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line) as McpFixtureLogEntry);
}
