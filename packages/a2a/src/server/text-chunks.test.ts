import { describe, expect, it } from "vitest";
import { TextChunks } from "./text-chunks.js";

describe("TextChunks", () => {
  it("the first chunk starts the artifact, the next ones append; after restart the next chunk replaces it", () => {
    const sent: [string, boolean][] = [];
    const chunks = new TextChunks((text, append) => sent.push([text, append]));
    chunks.add("a");
    chunks.add("b");
    chunks.flush();
    chunks.recorded();
    chunks.add("c");
    chunks.restart();
    chunks.add("d");
    chunks.flush();
    chunks.stop();
    expect(sent).toEqual([
      ["ab", false],
      ["c", true],
      ["d", false],
    ]);
  });

  it("continueArtifact: text after what an earlier request sent appends, unless text of this one waits to start the artifact", () => {
    const sent: [string, boolean][] = [];
    const resumed = new TextChunks((text, append) => sent.push([text, append]));
    resumed.continueArtifact();
    resumed.add("after the approval");
    resumed.flush();
    resumed.stop();
    const fresh = new TextChunks((text, append) => sent.push([text, append]));
    fresh.add("first");
    fresh.continueArtifact();
    fresh.add(" second");
    fresh.flush();
    fresh.stop();
    expect(sent).toEqual([
      ["after the approval", true],
      ["first second", false],
    ]);
  });
});
