// The shared EventBackend behaviour, run on the memory and the JSONL backends (the PostgreSQL one
// runs it in @adaptor/sessionrecorder-postgres).
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { JsonlEventBackend, MemoryEventBackend } from "@adaptor/sessionrecorder";
import { describeEventBackendConformance } from "@adaptor/sessionrecorder/testing";

describeEventBackendConformance("memory", async () => ({ backend: new MemoryEventBackend() }));

describeEventBackendConformance("JSONL", async () => {
  const root = await mkdtemp(join(tmpdir(), "adaptor-jsonl-kit-"));
  return {
    backend: new JsonlEventBackend({ root }),
    another: () => new JsonlEventBackend({ root }),
    cleanup: () => rm(root, { recursive: true, force: true }),
  };
});
