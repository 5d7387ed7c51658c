import { mkdirSync, mkdtempSync, renameSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { ApprovalAsk, ApprovalDecision } from "@adaptor/driver";
import {
  Agent,
  InvalidOptionError,
  InvalidPolicyError,
  type AgentEvent,
  type ApprovalRequest,
  type Policy,
  type RememberRule,
} from "../src/index.js";
import { ApprovalRules, rememberError, ruleMatches, suggestRules } from "../src/approval/approval-rule.js";
import { scriptedDriver } from "./scripted-driver.js";

const bash = (command: string): ApprovalAsk => ({ kind: "permission", title: `Bash: ${command}`, toolName: "Bash", input: { command } });
const edit = (file: string): ApprovalAsk => ({ kind: "permission", title: `Edit: ${file}`, toolName: "Edit", input: { file_path: file } });

/** A driver that asks `asks` one after the other and reports each decision's outcome as its text. */
function askingInOrder(asks: readonly ApprovalAsk[], sandbox: boolean = false) {
  const driver = scriptedDriver(async (_request, sink) => {
    const outcomes: ApprovalDecision[] = [];
    for (const ask of asks) outcomes.push(await sink.requestApproval(ask));
    return { text: JSON.stringify(outcomes) };
  });
  if (sandbox) {
    const { capabilities } = driver.descriptor;
    (driver as { descriptor: unknown }).descriptor = {
      ...driver.descriptor,
      capabilities: { ...capabilities, policy: { ...capabilities.policy, sandbox: ["read_only"] } },
    };
  }
  return driver;
}

async function run(
  asks: readonly ApprovalAsk[],
  decide: (request: ApprovalRequest, index: number) => void,
  policy: Policy = { approvals: { permission: "ask" } },
): Promise<{ events: AgentEvent[]; requests: ApprovalRequest[]; thrown: unknown[]; decisions: unknown }> {
  const requests: ApprovalRequest[] = [];
  const thrown: unknown[] = [];
  const agent = new Agent(askingInOrder(asks, policy.sandbox !== undefined), {
    onApproval: (request) => {
      requests.push(request);
      try {
        decide(request, requests.length - 1);
      } catch (error) {
        thrown.push(error);
        if (request.status === "pending") request.deny("after a refusal");
      }
    },
  });
  const stream = agent.stream("p", { policy });
  const events: AgentEvent[] = [];
  for await (const event of stream) events.push(event);
  const verdict = await stream.result().catch((error: unknown) => error);
  await agent.close();
  return { events, requests, thrown, decisions: verdict instanceof Error ? verdict : JSON.parse((verdict as { text: string }).text) };
}

const notices = (events: readonly AgentEvent[], kind: string) =>
  events.flatMap((e) => (e.type === "notice" && e.kind === kind ? [e.data ?? {}] : []));

describe("approval rules: what a rule matches", () => {
  it("an exact command matches that command only", () => {
    const rule = { toolName: "Bash", command: "npm test" };
    expect(ruleMatches(rule, bash("npm test"))).toBe(true);
    expect(ruleMatches(rule, bash("npm test -- --watch"))).toBe(false);
    expect(ruleMatches(rule, { ...bash("npm test"), toolName: "shell" })).toBe(false);
    expect(ruleMatches(rule, { ...bash("npm test"), kind: "plan_review" })).toBe(false);
  });

  it("a command prefix matches at a word boundary, and never a command with a shell operator or substitution", () => {
    const rule = { toolName: "Bash", commandPrefix: "npm test" };
    expect(ruleMatches(rule, bash("npm test"))).toBe(true);
    expect(ruleMatches(rule, bash("npm test -- --watch"))).toBe(true);
    expect(ruleMatches(rule, bash("npm tests"))).toBe(false);
    for (const command of [
      "npm test $HOME",
      "npm test ${IFS}x",
      "npm test -- ~/.ssh/id_rsa",
      "npm test -- *",
      "npm test {a,b}",
      "npm test 'x;y'",
      "npm test && rm -rf x",
      "npm test; rm x",
      "npm test | sh",
      "npm test > /etc/x",
      "npm test $(rm x)",
      "npm test `rm x`",
      "npm test\nrm x",
    ])
      expect(ruleMatches(rule, bash(command)), command).toBe(false);
  });

  it("an allow prefix never matches a zsh glob qualifier or process substitution (parentheses run commands)", () => {
    const rule = { toolName: "Bash", commandPrefix: "cat" };
    expect(ruleMatches(rule, bash("cat notes.txt"))).toBe(true);
    for (const command of ["cat x(e:reboot:)", "cat =(rm -rf y)", "cat (x)", "cat x)"])
      expect(ruleMatches(rule, bash(command)), command).toBe(false);
  });

  it("a deny command rule fails closed: a command matches when the denied program is any word of it, the rule's other words following", () => {
    const deny = { toolName: "Bash", commandPrefix: "rm" };
    const denies = (rule: typeof deny | { toolName: string; command: string }, command: string): boolean =>
      ruleMatches(rule, bash(command), undefined, "any");
    for (const command of [
      "rm -rf x",
      "rm  -rf x",
      "rm -rf x; true",
      "true && rm -rf x",
      "ls|rm -rf x",
      "/bin/rm -rf x",
      "command rm -rf x",
      "exec rm -rf x",
      "env rm -rf x",
      "sudo rm -rf x",
      "xargs rm < list",
      "find . -exec rm {} +",
      "FOO=1 rm -rf x",
      "x=$(rm -rf y)",
      "echo `rm -rf y`",
      "r\\m -rf x",
      "'rm' -rf x",
      "bash -lc \"bash -lc 'rm -rf x'\"",
      "bash -lc $'rm -rf x'",
      "bash -lc 'rm -rf x' ; other",
      "/bin/bash -lc 'rm -rf x'",
      "sh -c rm",
      "echo rm; ls",
      // Programs that run the words after them, whichever they are: no list of launchers is needed.
      "chrt 0 rm -rf x",
      "unshare rm -rf x",
      "fakeroot rm -rf x",
      "pkexec rm -rf x",
      "systemd-run rm -rf x",
      "nsenter -t 1 -m rm -rf x",
      "firejail rm -rf x",
      "bwrap --bind / / rm -rf x",
      // Brace expansion makes the program a word of its own.
      "{rm,-rf,x}",
      "/bin/bash -lc '{rm,-rf,x}'",
      // Conservative: rm only as an argument is denied too.
      "grep rm notes.txt",
      "/bin/bash -lc 'grep rm notes.txt'",
    ])
      expect(denies(deny, command), command).toBe(true);
    // Another program whose words never name rm is not denied.
    for (const command of ["rmdir x", "ls -la", "grep firm notes.txt", "echo hi; ls"]) expect(denies(deny, command), command).toBe(false);
    // A deny of a program by its path names it by any path, or none.
    const binRm = { toolName: "Bash", commandPrefix: "/bin/rm" };
    for (const command of ["rm -rf x", "/usr/bin/rm -rf x", "chrt 0 rm x"]) expect(denies(binRm, command), command).toBe(true);
    expect(denies(binRm, "rmdir x")).toBe(false);
    // The rest of a prefix must follow the denied program, where the words show it.
    const push = { toolName: "Bash", commandPrefix: "git push" };
    expect(denies(push, "cd repo && git push origin main")).toBe(true);
    expect(denies(push, "FOO=1 /usr/bin/git push")).toBe(true);
    expect(denies(push, "cd repo && git status")).toBe(false);
    expect(denies(push, "git status")).toBe(false);
    // An exact command rule denies the command inside any wrapper or list too.
    const exact = { toolName: "Bash", command: "rm -rf x" };
    expect(denies(exact, "rm -rf x")).toBe(true);
    expect(denies(exact, "true; rm -rf x")).toBe(true);
    expect(denies(exact, "rm -rf y")).toBe(false);
    // Allow matching stays strict: none of those wrapped forms is allowed by an allow prefix.
    for (const command of ["rm -rf x; true", "/bin/rm -rf x", "command rm -rf x", "FOO=1 rm -rf x", "bash -lc $'rm -rf x'"])
      expect(ruleMatches(deny, bash(command)), command).toBe(false);
  });

  it("a deny command rule reads a backslash-newline as the shell does: a line continuation, gone", () => {
    const deny = { toolName: "Bash", commandPrefix: "rm" };
    const terminal = (input: Record<string, unknown>): ApprovalAsk => ({
      kind: "permission",
      title: "t",
      toolName: "terminal/create",
      input,
    });
    for (const command of ["r\\\nm -f x", "r\\\r\nm -f x", "/bin/bash -lc 'r\\\nm -f x'", "true; \\\nr\\\nm x"])
      expect(ruleMatches(deny, bash(command), undefined, "any"), JSON.stringify(command)).toBe(true);
    expect(ruleMatches({ commandPrefix: "rm" }, terminal({ command: "sh", args: ["-c", "r\\\nm -f x"] }), undefined, "any")).toBe(true);
    expect(ruleMatches({ commandPrefix: "rm" }, terminal({ command: "r\\\nm -f x" }), undefined, "any")).toBe(true);
    expect(ruleMatches({ toolName: "Bash", commandPrefix: "git push" }, bash("git pu\\\nsh origin"), undefined, "any")).toBe(true);
    // A newline without a backslash still parts two words.
    expect(ruleMatches(deny, bash("r\nm -f x"), undefined, "any")).toBe(false);
  });

  it("an argv command (codex legacy asks) is compared joined with spaces", () => {
    expect(
      ruleMatches({ toolName: "shell", command: "ls -la" }, { kind: "permission", toolName: "shell", input: { command: ["ls", "-la"] } }),
    ).toBe(true);
  });

  it("a path prefix matches files inside the folder after resolving '..', and needs every file of a patch inside", () => {
    const rule = { toolName: "Edit", pathPrefix: "/repo/src" };
    expect(ruleMatches(rule, edit("/repo/src/a.ts"))).toBe(true);
    expect(ruleMatches(rule, edit("/repo/src/deep/b.ts"))).toBe(true);
    expect(ruleMatches(rule, edit("/repo/src/../secrets.env"))).toBe(false);
    expect(ruleMatches(rule, edit("/repo/srcx/a.ts"))).toBe(false);
    expect(ruleMatches(rule, edit("src/a.ts"))).toBe(false);
    const patch = (paths: string[]): ApprovalAsk => ({
      kind: "permission",
      title: "",
      toolName: "Edit",
      input: { changes: paths.map((path) => ({ path })) },
    });
    expect(ruleMatches(rule, patch(["/repo/src/a.ts", "/repo/src/b.ts"]))).toBe(true);
    expect(ruleMatches(rule, patch(["/repo/src/a.ts", "/repo/other.ts"]))).toBe(false);
  });

  it("a deny path rule fails closed: an ask naming no file, a relative one or a folder holding the denied one matches it; an allow does not", () => {
    const grep = (input: Record<string, unknown>): ApprovalAsk => ({ kind: "permission", title: "Grep", toolName: "Grep", input });
    const deny = { toolName: "Grep", pathPrefix: "/repo/secret" };
    expect(ruleMatches(deny, grep({ pattern: "KEY" }), undefined, "any")).toBe(true);
    expect(ruleMatches(deny, grep({ pattern: "KEY", path: "/repo" }), undefined, "any")).toBe(true);
    expect(ruleMatches(deny, grep({ pattern: "KEY", path: "/" }), undefined, "any")).toBe(true);
    expect(ruleMatches(deny, grep({ pattern: "KEY", path: "secret" }), undefined, "any")).toBe(true);
    expect(ruleMatches(deny, grep({ pattern: "KEY", path: "/repo/secret/deep" }), undefined, "any")).toBe(true);
    expect(ruleMatches(deny, grep({ pattern: "KEY", path: "/repo/src" }), undefined, "any")).toBe(false);
    expect(ruleMatches(deny, grep({ pattern: "KEY", path: "/repo/secretx" }), undefined, "any")).toBe(false);
    const allow = { toolName: "Grep", pathPrefix: "/repo/src" };
    expect(ruleMatches(allow, grep({ pattern: "KEY" }))).toBe(false);
    expect(ruleMatches(allow, { ...grep({ pattern: "KEY" }), cwd: "/repo/src" })).toBe(false);
    expect(ruleMatches(allow, grep({ pattern: "KEY", path: "/repo" }))).toBe(false);
    expect(ruleMatches(allow, grep({ pattern: "KEY", path: "src" }))).toBe(false);
    expect(ruleMatches(allow, grep({ pattern: "KEY", path: "/repo/src/deep" }))).toBe(true);
  });

  it("a path rule follows a link whose target does not exist yet to where a write through it lands", () => {
    const root = mkdtempSync(join(tmpdir(), "adaptor-dangling-"));
    try {
      const pub = join(root, "pub");
      const secret = join(root, "secret");
      mkdirSync(pub);
      mkdirSync(secret);
      symlinkSync(join(root, "outside", "target.txt"), join(pub, "dangling"));
      symlinkSync(join(root, "outside", "newdir"), join(pub, "dangling-dir"));
      symlinkSync(join(secret, "target.txt"), join(pub, "into-secret"));
      const allow = { toolName: "Edit", pathPrefix: pub };
      expect(ruleMatches(allow, edit(join(pub, "dangling")))).toBe(false);
      expect(ruleMatches(allow, edit(join(pub, "dangling-dir", "x.txt")))).toBe(false);
      expect(ruleMatches(allow, edit(join(pub, "plain.txt")))).toBe(true);
      expect(ruleMatches({ toolName: "Edit", pathPrefix: secret }, edit(join(pub, "into-secret")), undefined, "any")).toBe(true);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it("a deny path rule places an ask naming no file, or a relative one, in the run's working directory when it is known", () => {
    const grep = (input: Record<string, unknown>, cwd: string): ApprovalAsk & { cwd: string } => ({
      kind: "permission",
      title: "Grep",
      toolName: "Grep",
      input,
      cwd,
    });
    const deny = { toolName: "Grep", pathPrefix: "/home/u/.ssh" };
    // A search of a working directory elsewhere does not reach the denied folder.
    expect(ruleMatches(deny, grep({ pattern: "TODO" }, "/work/proj"), undefined, "any")).toBe(false);
    expect(ruleMatches(deny, grep({ pattern: "TODO", path: "src" }, "/work/proj"), undefined, "any")).toBe(false);
    expect(ruleMatches(deny, grep({ pattern: "TODO", path: "../../home/u" }, "/work/proj"), undefined, "any")).toBe(true);
    // A search of the folder holding it, or of the folder itself, does.
    expect(ruleMatches(deny, grep({ pattern: "TODO" }, "/home/u"), undefined, "any")).toBe(true);
    expect(ruleMatches(deny, grep({ pattern: "TODO" }, "/home/u/.ssh/keys"), undefined, "any")).toBe(true);
    expect(ruleMatches(deny, grep({ pattern: "TODO", path: ".ssh" }, "/home/u"), undefined, "any")).toBe(true);
    expect(ruleMatches(deny, grep({ pattern: "TODO", path: "docs" }, "/home/u"), undefined, "any")).toBe(false);
  });

  it("a glob pattern names the files it matches: an absolute, climbing, rooted or home pattern into a denied folder matches the deny whatever the ask's path", () => {
    const ask = (toolName: string, input: Record<string, unknown>): ApprovalAsk & { cwd: string } => ({
      kind: "permission",
      title: toolName,
      toolName,
      input,
      cwd: "/work/proj",
    });
    const glob = (input: Record<string, unknown>) => ask("Glob", input);
    const deny = { toolName: "Glob", pathPrefix: "/repo/secret" };
    expect(ruleMatches(deny, glob({ pattern: "/repo/secret/*.pem", path: "/repo/other" }), undefined, "any")).toBe(true);
    expect(ruleMatches(deny, glob({ pattern: "/repo/secret/key.pem", path: "/repo/other" }), undefined, "any")).toBe(true);
    expect(ruleMatches(deny, glob({ pattern: "/repo/sec*/key.pem", path: "/repo/other" }), undefined, "any")).toBe(true);
    expect(ruleMatches(deny, glob({ pattern: "/**/*.pem", path: "/repo/other" }), undefined, "any")).toBe(true);
    expect(ruleMatches(deny, glob({ pattern: "../secret/*.pem", path: "/repo/other" }), undefined, "any")).toBe(true);
    expect(ruleMatches(deny, glob({ pattern: "../../repo/secret/*" }), undefined, "any")).toBe(true);
    expect(ruleMatches(deny, glob({ pattern: "~/../../repo/secret/*", path: "/repo/other" }), undefined, "any")).toBe(true);
    expect(ruleMatches(deny, glob({ pattern: "{/repo/secret,x}/*", path: "/repo/other" }), undefined, "any")).toBe(true);
    expect(ruleMatches(deny, glob({ pattern: "*/../../repo/secret/*", path: "/repo/other" }), undefined, "any")).toBe(true);
    // A pattern that stays under a path elsewhere does not reach it.
    expect(ruleMatches(deny, glob({ pattern: "**/*.pem", path: "/repo/other" }), undefined, "any")).toBe(false);
    expect(ruleMatches(deny, glob({ pattern: "/repo/other/*.pem", path: "/repo/other" }), undefined, "any")).toBe(false);
    expect(ruleMatches(deny, glob({ pattern: "src/**/*.ts" }), undefined, "any")).toBe(false);
    // Grep's `glob` filter counts the same way; its `pattern` is a regular expression, not a path.
    const grepDeny = { toolName: "Grep", pathPrefix: "/repo/secret" };
    expect(ruleMatches(grepDeny, ask("Grep", { pattern: "KEY", path: "/repo/other", glob: "../secret/*" }), undefined, "any")).toBe(true);
    expect(ruleMatches(grepDeny, ask("Grep", { pattern: "/repo/secret/", path: "/repo/other" }), undefined, "any")).toBe(false);
    expect(ruleMatches(grepDeny, ask("Grep", { pattern: "..", path: "/repo/other" }), undefined, "any")).toBe(false);
    // Gemini CLI's glob tool and `include` globs.
    const gemini = { toolName: "glob", pathPrefix: "/repo/secret" };
    expect(ruleMatches(gemini, ask("glob", { pattern: "/repo/secret/**", dir_path: "/repo/other" }), undefined, "any")).toBe(true);
    const many = { toolName: "read_many_files", pathPrefix: "/repo/secret" };
    expect(ruleMatches(many, ask("read_many_files", { include: ["docs/*.md", "/repo/secret/**"] }), undefined, "any")).toBe(true);
    // An allow needs the pattern's root inside its folder too: a Glob of /etc from an allowed path is asked.
    const allow = { toolName: "Glob", pathPrefix: "/repo/src" };
    expect(ruleMatches(allow, glob({ pattern: "**/*.ts", path: "/repo/src" }))).toBe(true);
    expect(ruleMatches(allow, glob({ pattern: "/etc/*", path: "/repo/src" }))).toBe(false);
    expect(ruleMatches(allow, glob({ pattern: "../../etc/*", path: "/repo/src" }))).toBe(false);
    // The rule suggested for such an ask matches it: the tool alone when the pattern leaves the folder.
    expect(suggestRules(glob({ pattern: "/etc/*", path: "/repo/src" }))).toEqual([{ toolName: "Glob" }]);
    expect(suggestRules(glob({ pattern: "**/*.ts", path: "/repo/src/app" }))).toEqual([{ toolName: "Glob", pathPrefix: "/repo/src" }]);
  });

  it("a deny path rule reads any path field naming a folder that holds the denied one as reaching it (Gemini CLI's dir_path, an array of paths, a root)", () => {
    const ask = (toolName: string, input: Record<string, unknown>): ApprovalAsk & { cwd: string } => ({
      kind: "permission",
      title: toolName,
      toolName,
      input,
      cwd: "/work/proj",
    });
    const search = { toolName: "search_file_content", pathPrefix: "/repo/secret" };
    expect(ruleMatches(search, ask("search_file_content", { pattern: "KEY", dir_path: "/repo" }), undefined, "any")).toBe(true);
    expect(ruleMatches(search, ask("search_file_content", { pattern: "KEY", dir_path: "../../repo" }), undefined, "any")).toBe(true);
    expect(ruleMatches(search, ask("search_file_content", { pattern: "KEY", dir_path: "/repo/other" }), undefined, "any")).toBe(false);
    const many = { toolName: "read_many_files", pathPrefix: "/repo/secret" };
    expect(ruleMatches(many, ask("read_many_files", { paths: ["/work/proj/a.md", "/repo"] }), undefined, "any")).toBe(true);
    expect(ruleMatches(many, ask("read_many_files", { paths: ["/work/proj/a.md"] }), undefined, "any")).toBe(false);
    // Claude Code's own list of path fields names `root` (its artifact tools).
    const artifact = { toolName: "Artifact", pathPrefix: "/repo/secret" };
    expect(ruleMatches(artifact, ask("Artifact", { root: "/repo" }), undefined, "any")).toBe(true);
    expect(ruleMatches(artifact, ask("Artifact", { root: "/repo/secret/site" }), undefined, "any")).toBe(true);
    expect(ruleMatches(artifact, ask("Artifact", { root: "/repo/site" }), undefined, "any")).toBe(false);
  });

  it("a deny remembered with an answer is checked against the ask as a deny matches it, an allow exactly", () => {
    const grep = { id: "a1", kind: "permission", toolName: "Grep", input: { pattern: "key" } };
    const rule = { toolName: "Grep", pathPrefix: "/home/u/.ssh" };
    expect(rememberError(rule, grep, "deny()", "deny")).toBeUndefined();
    expect(rememberError(rule, grep, "approve()")?.field).toBe("remember.pathPrefix");
    expect(rememberError(rule, { ...grep, cwd: "/home/u" }, "deny()", "deny")).toBeUndefined();
    expect(rememberError(rule, { ...grep, cwd: "/work/proj" }, "deny()", "deny")?.field).toBe("remember");
    // A deny of rm remembered answering `sudo rm -rf x` matches it as the run will.
    const sudo = { id: "a2", kind: "permission", toolName: "Bash", input: { command: "sudo rm -rf x" } };
    expect(rememberError({ toolName: "Bash", commandPrefix: "rm" }, sudo, "deny()", "deny")).toBeUndefined();
    expect(rememberError({ toolName: "Bash", commandPrefix: "rm" }, sudo, "approve()")?.field).toBe("remember");
  });

  it("a tool-only rule matches every ask about the tool", () => {
    expect(ruleMatches({ toolName: "Bash" }, bash("anything"))).toBe(true);
  });

  it("suggestions: the command for shell, the file's folder for files, the tool otherwise; none for questions and plan reviews", () => {
    expect(suggestRules(bash("npm test"))).toEqual([{ toolName: "Bash", command: "npm test" }]);
    expect(suggestRules(edit("/repo/src/a.ts"))).toEqual([{ toolName: "Edit", pathPrefix: "/repo/src" }]);
    expect(suggestRules({ kind: "permission", toolName: "WebFetch", input: { url: "https://x" } })).toEqual([{ toolName: "WebFetch" }]);
    expect(suggestRules({ kind: "question", toolName: "AskUserQuestion", input: {} })).toEqual([]);
    expect(suggestRules({ kind: "plan_review", toolName: "ExitPlanMode", input: {} })).toEqual([]);
  });
});

describe("approval rules never widen what the host allowed", () => {
  it("a remembered deny of a command holds in another working directory and environment", async () => {
    const ask = (input: Record<string, unknown>): ApprovalAsk => ({ kind: "permission", title: "t", toolName: "terminal/create", input });
    const first = { command: "/bin/bash", args: ["-c", "rm -rf build"], cwd: "/work/repo", env: [] };
    const asks = [ask(first), ask({ ...first, cwd: "/work/other" }), ask({ ...first, env: [{ name: "HOME", value: "/tmp/h" }] })];
    const { requests, decisions } = await run(asks, (request) => request.deny("never", { remember: request.suggestions[0]! }));
    expect(requests.map((r) => r.input)).toEqual([asks[0]!.input]);
    expect((decisions as ApprovalDecision[]).map((d) => d.outcome)).toEqual(["deny", "deny", "deny"]);
  });

  it("a remembered command allows it only with the same working directory, arguments and environment", async () => {
    const ask = (input: Record<string, unknown>): ApprovalAsk => ({ kind: "permission", title: "t", toolName: "terminal/create", input });
    const first = { command: "/bin/bash", args: ["-c", "echo hello"], cwd: "/work/repo", env: [] };
    const asks = [
      ask(first),
      ask({ ...first, args: ["-c", "echo PWNED > x"] }),
      ask({ ...first, env: [{ name: "BASH_ENV", value: "/tmp/evil" }] }),
      ask({ ...first, cwd: "/tmp/outside" }),
      ask({ ...first }),
    ];
    const { requests, decisions } = await run(asks, (request, index) => {
      if (index === 0) request.approve({ remember: request.suggestions[0]! });
      else request.deny("asked");
    });
    expect(requests.map((r) => r.input)).toEqual([asks[0]!.input, asks[1]!.input, asks[2]!.input, asks[3]!.input]);
    expect((decisions as ApprovalDecision[]).map((d) => d.outcome)).toEqual(["approve", "deny", "deny", "deny", "approve"]);
  });

  it("an up-front allow never approves a call with variables of its own: it is asked", async () => {
    const ask = (input: Record<string, unknown>): ApprovalAsk => ({ kind: "permission", title: "t", toolName: "terminal/create", input });
    const asks = [
      ask({ command: "bash", args: ["-c", "ls"], cwd: "/work/repo", env: [{ name: "BASH_ENV", value: "/tmp/evil.sh" }] }),
      ask({ command: "ls", env: [{ name: "BASH_ENV", value: "/tmp/evil.sh" }] }),
      ask({ command: "ls", env: [] }),
      ask({ command: "ls" }),
    ];
    const { requests, decisions } = await run(asks, (request) => request.deny("asked"), {
      approvals: {
        permission: "ask",
        rules: [
          { command: "ls", outcome: "approve" },
          { command: "bash -c ls", outcome: "approve" },
        ],
      },
    });
    expect(requests.map((r) => r.input)).toEqual([asks[0]!.input, asks[1]!.input]);
    expect((decisions as ApprovalDecision[]).map((d) => d.outcome)).toEqual(["deny", "deny", "approve", "approve"]);
  });

  it("a codex command rule does not follow the command into another working directory", async () => {
    const shell = (cwd: string): ApprovalAsk => ({
      kind: "permission",
      title: "t",
      toolName: "shell",
      input: { command: "npm test", cwd },
    });
    const { requests, decisions } = await run([shell("/work/repo"), shell("/tmp/outside"), shell("/work/repo")], (request, index) => {
      if (index === 0) request.approve({ remember: { toolName: "shell", commandPrefix: "npm test" } });
      else request.deny("asked");
    });
    expect(requests.map((r) => (r.input as { cwd: string }).cwd)).toEqual(["/work/repo", "/tmp/outside"]);
    expect((decisions as ApprovalDecision[]).map((d) => d.outcome)).toEqual(["approve", "deny", "approve"]);
  });

  it("a path rule on a shell tool, or on an ask that names no file (an ACP agent's shell tool), is refused as one that can never match", async () => {
    const agentShell: ApprovalAsk = {
      kind: "permission",
      title: "run",
      toolName: "run_shell_command",
      input: { command: "cat secret/key" },
    };
    const { thrown, decisions } = await run([bash("cat /work/secret/key"), agentShell], (request, index) => {
      const remember = { toolName: request.toolName!, pathPrefix: "/work/secret" };
      if (index === 0) request.approve({ remember });
      else request.deny("no", { remember });
    });
    expect(thrown).toHaveLength(2);
    expect(thrown.map((error) => [error instanceof InvalidOptionError, (error as InvalidOptionError).field])).toEqual([
      [true, "remember.pathPrefix"],
      [true, "remember.pathPrefix"],
    ]);
    expect((thrown[0] as Error).message).toContain("can never match");
    expect((decisions as ApprovalDecision[]).map((d) => d.outcome)).toEqual(["deny", "deny"]);
  });

  it("a command prefix cannot start with a variable assignment", async () => {
    const { thrown } = await run([bash("FOO=1 npm test")], (request) =>
      request.approve({ remember: { toolName: "Bash", commandPrefix: "FOO=1" } }),
    );
    expect(thrown).toHaveLength(1);
    expect(thrown[0]).toBeInstanceOf(InvalidOptionError);
  });

  it("a path prefix does not follow a symbolic link inside the folder that leads out, nor other path fields outside it", () => {
    const root = mkdtempSync(join(tmpdir(), "adaptor-rule-"));
    try {
      mkdirSync(join(root, "repo", "src"), { recursive: true });
      mkdirSync(join(root, "outside"));
      symlinkSync(join(root, "outside"), join(root, "repo", "src", "link"));
      const rule = { toolName: "Edit", pathPrefix: join(root, "repo", "src") };
      expect(ruleMatches(rule, edit(join(root, "repo", "src", "a.ts")))).toBe(true);
      expect(ruleMatches(rule, edit(join(root, "repo", "src", "new", "b.ts")))).toBe(true);
      expect(ruleMatches(rule, edit(join(root, "repo", "src", "link", "x")))).toBe(false);
      const inside = join(root, "repo", "src", "a.ts");
      for (const input of [
        { file_path: inside, new_path: "/etc/passwd" },
        { file_path: inside, destination: "/etc/passwd" },
        { file_path: inside, edits: [{ file_path: "/etc/passwd" }] },
      ])
        expect(ruleMatches(rule, { kind: "permission", toolName: "Edit", input }), JSON.stringify(input)).toBe(false);
      const patch = (change: Record<string, unknown>) => ({
        kind: "permission",
        toolName: "apply_patch",
        input: { fileChanges: { [inside]: { type: "update", unified_diff: "@@ -1 +1 @@\n-a\n+b\n", ...change } } },
      });
      const patchRule = { toolName: "apply_patch", pathPrefix: join(root, "repo", "src") };
      expect(ruleMatches(patchRule, patch({}))).toBe(true);
      expect(ruleMatches(patchRule, patch({ move_path: "/etc/passwd" }))).toBe(false);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
  it("a deny rule on a folder wins over an allow on its parent when an edit touches a denied file and another one (any file inside is enough to deny)", () => {
    const rules = new ApprovalRules();
    rules.add({
      rule: { toolName: "apply_patch", pathPrefix: "/repo/secret" },
      scope: "run",
      decision: { outcome: "deny", reason: "secret" },
    });
    rules.add({ rule: { toolName: "apply_patch", pathPrefix: "/repo" }, scope: "run", decision: { outcome: "approve" } });
    const patch = (...files: string[]) => ({
      kind: "permission",
      toolName: "apply_patch",
      input: { fileChanges: Object.fromEntries(files.map((file) => [file, { type: "update", unified_diff: "" }])) },
    });
    expect(rules.match(patch("/repo/secret/key.txt", "/repo/other.txt"))?.decision.outcome).toBe("deny");
    expect(rules.match(patch("/repo/other.txt", "/repo/secret/key.txt"))?.decision.outcome).toBe("deny");
    expect(rules.match(patch("/repo/secret/key.txt"))?.decision.outcome).toBe("deny");
    expect(rules.match(patch("/repo/other.txt", "/repo/a/b.txt"))?.decision.outcome).toBe("approve");
    // A move out of the denied folder names the denied file too.
    const move = {
      kind: "permission",
      toolName: "apply_patch",
      input: { fileChanges: { "/repo/secret/key.txt": { type: "update", unified_diff: "", move_path: "/repo/public.txt" } } },
    };
    expect(rules.match(move)?.decision.outcome).toBe("deny");
  });

  it("a NotebookEdit's cell text (new_source) is content, not a path: a folder rule matches the notebook inside it", () => {
    const rule = { toolName: "NotebookEdit", pathPrefix: "/repo" };
    const edit = (new_source: string) => ({
      kind: "permission",
      toolName: "NotebookEdit",
      input: { notebook_path: "/repo/nb.ipynb", cell_id: "c1", new_source },
    });
    expect(ruleMatches(rule, edit("print(1)"))).toBe(true);
    expect(ruleMatches(rule, edit("/etc/passwd"))).toBe(true);
    expect(ruleMatches(rule, { ...edit("x"), input: { notebook_path: "/etc/nb.ipynb", new_source: "x" } })).toBe(false);
  });

  it("a path rule stays on the folder it was remembered for: the folder swapped for a link to elsewhere is asked again", async () => {
    const root = mkdtempSync(join(tmpdir(), "adaptor-rule-"));
    try {
      const src = join(root, "repo", "src");
      mkdirSync(src, { recursive: true });
      mkdirSync(join(root, "outside"));
      const driver = scriptedDriver(async (_request, sink) => {
        const first = await sink.requestApproval(edit(join(src, "a.ts")));
        renameSync(src, join(root, "repo", "src.real"));
        symlinkSync(join(root, "outside"), src);
        const second = await sink.requestApproval(edit(join(src, "b.ts")));
        return { text: JSON.stringify([first, second]) };
      });
      const asked: string[] = [];
      const agent = new Agent(driver, {
        onApproval: (request) => {
          asked.push((request.input as { file_path: string }).file_path);
          if (asked.length === 1) request.approve({ remember: request.suggestions[0]! });
          else request.deny("outside");
        },
      });
      const result = await agent.run("p", { policy: { approvals: { permission: "ask" } } });
      await agent.close();
      expect(asked).toEqual([join(src, "a.ts"), join(src, "b.ts")]);
      expect(JSON.parse(result.text)).toEqual([{ outcome: "approve" }, { outcome: "deny", reason: "outside" }]);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});

describe("approval rules in a run", () => {
  it("approve({ remember }) answers later matching asks at once, each recorded; other asks still reach the host", async () => {
    const { events, requests, thrown, decisions } = await run(
      [bash("npm test"), bash("npm test"), bash("npm run build"), bash("npm test")],
      (request, index) => {
        if (index === 0) request.approve({ remember: request.suggestions[0]! });
        else request.deny("no");
      },
    );
    expect(thrown).toEqual([]);
    expect(requests.map((r) => r.title)).toEqual(["Bash: npm test", "Bash: npm run build"]);
    expect(requests[0]!.suggestions).toEqual([{ toolName: "Bash", command: "npm test" }]);
    expect(decisions).toEqual([{ outcome: "approve" }, { outcome: "approve" }, { outcome: "deny", reason: "no" }, { outcome: "approve" }]);
    const rule = { toolName: "Bash", command: "npm test" };
    expect(notices(events, "approval.remembered")).toEqual([
      { id: requests[0]!.id, kind: "permission", toolName: "Bash", outcome: "approved", rule, scope: "run" },
    ]);
    expect(notices(events, "approval.resolved").map((d) => [d.outcome, d.rule])).toEqual([
      ["approved", undefined],
      ["approved", rule],
      ["denied", undefined],
      ["approved", rule],
    ]);
    expect(notices(events, "approval.requested").filter((d) => d.rule !== undefined)).toHaveLength(2);
  });

  it("a policy deny rule on rm denies rm in a list, by path, behind a launcher or an env prefix, or in a wrapper, while the host approves the rest", async () => {
    const denied = ["rm -rf x", "rm -rf x; true", "/bin/rm -rf x", "command rm -rf x", "FOO=1 rm -rf x", "bash -lc $'rm -rf x'"];
    const { requests, decisions } = await run([...denied, "ls -la"].map(bash), (request) => request.approve(), {
      approvals: { permission: "ask", rules: [{ toolName: "Bash", commandPrefix: "rm", outcome: "deny" }] },
    });
    expect(requests.map((r) => r.title)).toEqual(["Bash: ls -la"]);
    expect(decisions).toEqual([...denied.map(() => ({ outcome: "deny", reason: "denied by policy rule" })), { outcome: "approve" }]);
  });

  it("a policy deny path rule lets a search of a working directory elsewhere through and denies one of a folder holding it", async () => {
    const root = mkdtempSync(join(tmpdir(), "adaptor-cwd-rule-"));
    try {
      mkdirSync(join(root, "proj"));
      mkdirSync(join(root, "home", ".ssh"), { recursive: true });
      const grep: ApprovalAsk = { kind: "permission", title: "Grep", toolName: "Grep", input: { pattern: "TODO" } };
      const policy: Policy = {
        approvals: { permission: "ask", rules: [{ toolName: "Grep", pathPrefix: join(root, "home", ".ssh"), outcome: "deny" }] },
      };
      const asked = async (cwd: string) => {
        const agent = new Agent(askingInOrder([grep]), { onApproval: (request) => request.approve() });
        try {
          return JSON.parse((await agent.run("p", { policy, cwd })).text) as ApprovalDecision[];
        } finally {
          await agent.close();
        }
      };
      expect(await asked(join(root, "proj"))).toEqual([{ outcome: "approve" }]);
      expect(await asked(join(root, "home"))).toEqual([{ outcome: "deny", reason: "denied by policy rule" }]);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it("deny(reason, { remember }) denies later matching asks with the same reason, and wins over a remembered allow", async () => {
    const prefix: RememberRule = { toolName: "Bash", commandPrefix: "rm" };
    const { requests, decisions } = await run([bash("rm a"), bash("rm b"), bash("ls"), bash("rm c")], (request, index) => {
      if (index === 0) request.deny("never rm", { remember: prefix });
      else request.approve({ remember: { toolName: "Bash" } });
    });
    expect(requests.map((r) => r.title)).toEqual(["Bash: rm a", "Bash: ls"]);
    expect(decisions).toEqual([
      { outcome: "deny", reason: "never rm" },
      { outcome: "deny", reason: "never rm" },
      { outcome: "approve" },
      { outcome: "deny", reason: "never rm" },
    ]);
  });

  it("under sandbox read_only, approve({ remember }) is InvalidOptionError and nothing is decided; deny({ remember }) still works", async () => {
    let statusAfter: string | undefined;
    const { thrown, requests, decisions } = await run(
      [bash("cat a"), bash("cat a"), bash("rm a"), bash("rm a")],
      (request, index) => {
        if (index === 0) {
          try {
            request.approve({ remember: request.suggestions[0]! });
          } finally {
            statusAfter = request.status;
          }
        } else if (index === 1) request.approve();
        else request.deny("no", { remember: request.suggestions[0]! });
      },
      { sandbox: "read_only", approvals: { permission: "ask" } },
    );
    expect(thrown).toHaveLength(1);
    expect(thrown[0]).toBeInstanceOf(InvalidOptionError);
    expect(thrown[0]).toMatchObject({ field: "remember" });
    expect((thrown[0] as Error).message).toContain('policy.sandbox is "read_only"');
    expect(statusAfter).toBe("pending");
    // No rule was remembered: the second `cat a` was asked again.
    expect(requests.map((r) => r.title)).toEqual(["Bash: cat a", "Bash: cat a", "Bash: rm a"]);
    expect(decisions).toEqual([
      { outcome: "deny", reason: "after a refusal" },
      { outcome: "approve" },
      { outcome: "deny", reason: "no" },
      { outcome: "deny", reason: "no" },
    ]);
  });

  it("refuses a rule that does not match the request, a malformed one, one with updatedInput, and one on a question; the request stays pending", async () => {
    const attempts: Array<(request: ApprovalRequest) => void> = [
      (r) => r.approve({ remember: { toolName: "Bash", command: "something else" } }),
      (r) => r.approve({ remember: { toolName: "Edit" } }),
      (r) => r.approve({ remember: { toolName: "Bash", command: "npm test", commandPrefix: "npm" } }),
      (r) => r.approve({ remember: { toolName: "Bash", pathPrefix: "relative/dir" } }),
      (r) => r.approve({ remember: { toolName: "Bash", scope: "forever" } as unknown as RememberRule }),
      (r) => r.approve({ remember: { toolName: "Bash" }, updatedInput: { command: "npm test --ci" } }),
      (r) => r.deny("x", { remember: null as unknown as RememberRule }),
      // A misspelt field is refused, not dropped (dropped, the rule would allow every Bash call).
      (r) => r.approve({ remember: { toolName: "Bash", commandPrefx: "npm test" } as unknown as RememberRule }),
    ];
    const fields: unknown[] = [];
    const { requests, decisions } = await run([bash("npm test")], (request) => {
      for (const attempt of attempts) {
        try {
          attempt(request);
        } catch (error) {
          fields.push(error instanceof InvalidOptionError ? error.field : error);
        }
        expect(request.status).toBe("pending");
      }
      request.approve();
    });
    expect(fields).toEqual([
      "remember",
      "remember",
      "remember.commandPrefix",
      "remember.pathPrefix",
      "remember.scope",
      "remember",
      "remember",
      "remember.commandPrefx",
    ]);
    expect(requests).toHaveLength(1);
    expect(decisions).toEqual([{ outcome: "approve" }]);
    const question = await run(
      [{ kind: "question", title: "Which?", toolName: "AskUserQuestion", input: {} }],
      (request) => request.deny("x", { remember: { toolName: "AskUserQuestion" } }),
      {
        approvals: { question: "ask" },
      },
    );
    expect(question.thrown).toHaveLength(1);
    expect(question.thrown[0]).toMatchObject({ field: "remember" });
  });

  /** A driver asking `asks` in order whose turn takes approval mode switches. */
  const switching = (asks: readonly ApprovalAsk[]) => {
    const base = askingInOrder(asks);
    return {
      ...base,
      descriptor: { ...base.descriptor, capabilities: { ...base.descriptor.capabilities, turnControl: { approvalMode: true } } },
    };
  };

  it("a switch to auto_deny mid-run (a lock-down) is made while the run holds a remembered allow, and wins over it", async () => {
    await using agent = new Agent(switching([bash("npm test"), bash("npm test")]));
    const stream = agent.stream("p", { policy: { approvals: { permission: "ask" } } });
    const switched: unknown[] = [];
    for await (const event of stream) {
      if (event.type !== "approval-request") continue;
      event.request.approve({ remember: event.request.suggestions[0]! });
      switched.push(await stream.setApprovalMode({ permission: "auto_deny" }));
    }
    expect(switched).toEqual([true]);
    const decisions: unknown = JSON.parse((await stream.result()).text);
    expect(decisions).toEqual([{ outcome: "approve" }, { outcome: "deny", reason: "denied by policy" }]);
  });

  it("a switch to auto_approve mid-run is refused while the run holds a deny rule (given or remembered); the rule still denies", async () => {
    await using agent = new Agent(switching([bash("ls"), bash("rm -rf x"), bash("git push"), bash("git push")]));
    const stream = agent.stream("p", {
      policy: { approvals: { permission: "ask", rules: [{ toolName: "Bash", commandPrefix: "rm", outcome: "deny" }] } },
    });
    const refusals: unknown[] = [];
    for await (const event of stream) {
      if (event.type !== "approval-request") continue;
      if (event.request.title === "Bash: git push") event.request.deny("no pushing", { remember: event.request.suggestions[0]! });
      else event.request.approve();
      refusals.push(await stream.setApprovalMode({ permission: "auto_approve" }).catch((error: unknown) => error));
    }
    expect(refusals.map((error) => [error instanceof InvalidPolicyError, (error as InvalidPolicyError).field])).toEqual([
      [true, "approvals.permission"],
      [true, "approvals.permission"],
    ]);
    expect((refusals[0] as Error).message).toContain(
      'deny rule (Bash commands starting "rm", approvals.rules[0]) would never be consulted',
    );
    const decisions: unknown = JSON.parse((await stream.result()).text);
    expect(decisions).toEqual([
      { outcome: "approve" },
      { outcome: "deny", reason: "denied by policy rule" },
      { outcome: "deny", reason: "no pushing" },
      { outcome: "deny", reason: "no pushing" },
    ]);
  });

  it("a deny with remember answered after a switch to auto_approve decides its ask but is not remembered, and a notice says so", async () => {
    const question: ApprovalAsk = { kind: "question", title: "Which?", toolName: "AskUserQuestion", input: {} };
    await using agent = new Agent(switching([bash("git push"), bash("git push"), question]));
    const stream = agent.stream("p", { policy: { approvals: { permission: "ask", question: "ask" } } });
    const switched: unknown[] = [];
    const events: AgentEvent[] = [];
    for await (const event of stream) {
      events.push(event);
      if (event.type !== "approval-request") continue;
      if (event.request.kind === "question") {
        // The run holds no deny rule: switching to auto_approve again is made.
        switched.push(await stream.setApprovalMode({ permission: "auto_approve" }).catch((error: unknown) => error));
        event.request.answer("a");
        continue;
      }
      switched.push(await stream.setApprovalMode({ permission: "auto_approve" }));
      event.request.deny("no pushing", { remember: event.request.suggestions[0]! });
    }
    expect(switched).toEqual([true, true]);
    expect(notices(events, "approval.remembered")).toEqual([]);
    expect(notices(events, "lifecycle").filter((data) => data["warning"] === "deny_rule_not_remembered")).toMatchObject([
      { kind: "permission", toolName: "Bash", rule: { toolName: "Bash", command: "git push" }, scope: "run" },
    ]);
    const decisions: unknown = JSON.parse((await stream.result()).text);
    expect(decisions).toEqual([{ outcome: "deny", reason: "no pushing" }, { outcome: "approve" }, { outcome: "answer", choice: "a" }]);
  });

  it("a switch made before the run starts is checked against the policy's rules; one that no rule forbids still applies", async () => {
    await using agent = new Agent(switching([bash("rm -rf x"), bash("ls")]));
    const stream = agent.stream("p", {
      policy: { approvals: { permission: "ask", rules: [{ toolName: "Bash", commandPrefix: "rm", outcome: "deny" }] } },
    });
    const refused = await stream.setApprovalMode({ permission: "auto_approve" }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(InvalidPolicyError);
    await expect(stream.setApprovalMode({ permission: "auto_deny" })).resolves.toBe(true);
    for await (const _event of stream) {
      // Nothing is asked: auto_deny, which comes before the rules, denies both calls.
    }
    expect(JSON.parse((await stream.result()).text)).toEqual([
      { outcome: "deny", reason: "denied by policy" },
      { outcome: "deny", reason: "denied by policy" },
    ]);
  });

  it("auto modes come first: under auto_approve the host is never asked, so nothing is remembered", async () => {
    const { requests, events } = await run([bash("npm test")], () => undefined, { approvals: { permission: "auto_approve" } });
    expect(requests).toEqual([]);
    expect(notices(events, "approval.remembered")).toEqual([]);
  });
});
