import { describe, expect, it } from "vitest";
import { StoredAnswers, type StoredAnswer } from "./turn-data.js";

const approve = { outcome: "approve" } as const;

/** One stored answer to a Write of `path`, asked in `cwd`. */
function write(path: string, cwd?: string): StoredAnswer {
  return {
    kind: "permission",
    toolName: "Write",
    input: { file_path: path, command: `cat ${path} > /dev/null` },
    ...(cwd ? { cwd } : {}),
    decision: approve,
  };
}

/** The ask of a Write of `path`, as a CLI makes it. */
function ask(path: string) {
  return {
    kind: "permission" as const,
    title: `Write ${path}`,
    toolName: "Write",
    input: { command: `cat ${path} > /dev/null`, file_path: path },
  };
}

describe("StoredAnswers", () => {
  it("an answer asked in one working directory applies to the same ask in another: every occurrence of the directory counts as the same", () => {
    const answers = new StoredAnswers();
    answers.add([write("/srv/a/repo/notes.md", "/srv/a/repo")], "/home/b/work/repo");
    expect(answers.take(ask("/home/b/work/repo/notes.md"))).toEqual(approve);
    expect(answers.take(ask("/home/b/work/repo/notes.md"))).toBeUndefined(); // each answer applies once
  });

  it("a directory that only begins like the working directory, another path, or the other host's own path is not the same", () => {
    const answers = new StoredAnswers();
    answers.add([write("/srv/a/repo/notes.md", "/srv/a/repo")], "/home/b/repo");
    expect(answers.take(ask("/home/b/repo2/notes.md"))).toBeUndefined();
    expect(answers.take(ask("/home/b/repo/other.md"))).toBeUndefined();
    expect(answers.take(ask("/srv/a/repo/notes.md"))).toBeUndefined();
    expect(answers.take(ask("/home/b/repo/notes.md"))).toEqual(approve);
  });

  it("without a known working directory on either side inputs are compared as they are (key order aside)", () => {
    const unknownHere = new StoredAnswers();
    unknownHere.add([write("/srv/a/repo/notes.md", "/srv/a/repo")]);
    expect(unknownHere.take(ask("/home/b/repo/notes.md"))).toBeUndefined();
    expect(unknownHere.take(ask("/srv/a/repo/notes.md"))).toEqual(approve);

    const unknownThere = new StoredAnswers();
    unknownThere.add([write("/srv/a/repo/notes.md")], "/home/b/repo");
    expect(unknownThere.take(ask("/home/b/repo/notes.md"))).toBeUndefined();
    expect(unknownThere.take(ask("/srv/a/repo/notes.md"))).toEqual(approve);
  });
});
