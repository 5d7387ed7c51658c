import { describe, expect, it } from "vitest";
import { SAFE_ENV_BASE, envNameMatches, inheritEnvProblem, mergeChildEnv } from "./child-env.js";

const host = {
  PATH: "/bin",
  HOME: "/home/u",
  LC_ALL: "C",
  AWS_SECRET_ACCESS_KEY: "s3cr3t",
  DATABASE_URL: "postgres://x",
  ANTHROPIC_API_KEY: "k",
};

describe("mergeChildEnv", () => {
  it("host secrets stay home by default: only the default allowlist is inherited", () => {
    const env = mergeChildEnv({ defaultInherit: [...SAFE_ENV_BASE, "ANTHROPIC_*"], hostEnv: host });
    expect(env).toEqual({ PATH: "/bin", HOME: "/home/u", LC_ALL: "C", ANTHROPIC_API_KEY: "k" });
  });

  it("inheritEnv: true passes the whole host environment; false none", () => {
    expect(mergeChildEnv({ inheritEnv: true, defaultInherit: [], hostEnv: host })).toEqual(host);
    expect(mergeChildEnv({ inheritEnv: false, defaultInherit: SAFE_ENV_BASE, hostEnv: host })).toEqual({});
  });

  it("an allowlist inherits exactly the named variables and prefixes, not the default set", () => {
    expect(mergeChildEnv({ inheritEnv: ["PATH", "AWS_*"], defaultInherit: SAFE_ENV_BASE, hostEnv: host })).toEqual({
      PATH: "/bin",
      AWS_SECRET_ACCESS_KEY: "s3cr3t",
    });
  });

  it("an allowlist reads the values of the inherited variables only, in the host's order, a variable set without a value left out", () => {
    const read: string[] = [];
    const counted = new Proxy(
      { ...host, LC_CTYPE: undefined },
      {
        get: (target, name: string) => {
          read.push(name);
          return target[name as keyof typeof target];
        },
      },
    );
    const env = mergeChildEnv({ defaultInherit: [...SAFE_ENV_BASE, "ANTHROPIC_*"], hostEnv: counted });
    expect(Object.entries(env)).toEqual([
      ["PATH", "/bin"],
      ["HOME", "/home/u"],
      ["LC_ALL", "C"],
      ["ANTHROPIC_API_KEY", "k"],
    ]);
    expect(read).toEqual(["PATH", "HOME", "LC_ALL", "ANTHROPIC_API_KEY", "LC_CTYPE"]);
  });

  it("layers merge in order over the inherited part; undefined removes a variable", () => {
    const env = mergeChildEnv({
      defaultInherit: SAFE_ENV_BASE,
      hostEnv: host,
      layers: [{ A: "1", HOME: "/h2" }, undefined, { A: "2", PATH: undefined }],
    });
    expect(env).toEqual({ HOME: "/h2", LC_ALL: "C", A: "2", PATH: undefined });
  });
});

describe("allowlist matching", () => {
  /** The definition: exact, or a prefix pattern ending in `*`, tried one by one. */
  const plain = (name: string, patterns: readonly string[]): boolean =>
    patterns.some((p) => (p.endsWith("*") ? name.startsWith(p.slice(0, -1)) : name === p));

  it("matches exactly what the pattern-by-pattern definition matches", () => {
    const names = ["PATH", "PATHX", "path", "LC_ALL", "LC_", "LC", "AWS_SECRET", "A", "", "HOME", "ANTHROPIC_API_KEY", "X_Y"];
    const lists: (readonly string[])[] = [
      [],
      ["*"],
      ["PATH"],
      ["LC_*", "PATH"],
      ["A*", "HOME", "LC_*"],
      ["AWS_*", "PAT*", "X_Y"],
      SAFE_ENV_BASE,
    ];
    for (const patterns of lists) {
      for (const name of names) expect([name, patterns, envNameMatches(name, patterns)]).toEqual([name, patterns, plain(name, patterns)]);
      const hostEnv = Object.fromEntries(names.map((name) => [name, `v-${name}`]));
      const merged = mergeChildEnv({ inheritEnv: patterns, defaultInherit: [], hostEnv });
      expect(Object.keys(merged)).toEqual(names.filter((name) => plain(name, patterns)));
    }
  });

  it("an allowlist changed in place is honoured by the next launch", () => {
    const allowlist = ["PATH"];
    expect(mergeChildEnv({ inheritEnv: allowlist, defaultInherit: [], hostEnv: host })).toEqual({ PATH: "/bin" });
    allowlist[0] = "HOME";
    allowlist.push("AWS_*");
    expect(mergeChildEnv({ inheritEnv: allowlist, defaultInherit: [], hostEnv: host })).toEqual({
      HOME: "/home/u",
      AWS_SECRET_ACCESS_KEY: "s3cr3t",
    });
    expect(envNameMatches("PATH", allowlist)).toBe(false);
    allowlist.length = 0;
    expect(mergeChildEnv({ inheritEnv: allowlist, defaultInherit: [], hostEnv: host })).toEqual({});
  });
});

describe("inheritEnvProblem / envNameMatches", () => {
  it("accepts booleans and name lists; refuses a string, non-strings and malformed names", () => {
    expect(inheritEnvProblem(true)).toBeUndefined();
    expect(inheritEnvProblem(["PATH", "LC_*"])).toBeUndefined();
    expect(inheritEnvProblem("PATH")).toContain("must be true, false or an array");
    expect(inheritEnvProblem([1])).toContain("strings");
    expect(inheritEnvProblem(["A=B"])).toContain('"A=B" is not a variable name');
    expect(inheritEnvProblem(["*X"])).toContain("is not a variable name");
  });

  it("matches exact names and trailing-* prefixes, case-sensitively", () => {
    expect(envNameMatches("LC_ALL", ["LC_*"])).toBe(true);
    expect(envNameMatches("path", ["PATH"])).toBe(false);
    expect(envNameMatches("PATHX", ["PATH"])).toBe(false);
  });
});
