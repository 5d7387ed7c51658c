import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { ApprovalAsk, ApprovalDecision } from "@adaptor/driver";
import {
  acceptEdits,
  Agent,
  checkRunInput,
  EDIT_TOOLS,
  InvalidPolicyError,
  type AgentEvent,
  type ApprovalRequest,
  type Policy,
} from "../src/index.js";
import { scriptedDriver } from "./scripted-driver.js";

const bash = (command: string): ApprovalAsk => ({ kind: "permission", title: `Bash: ${command}`, toolName: "Bash", input: { command } });
const write = (file: string, toolName = "Write"): ApprovalAsk => ({
  kind: "permission",
  title: `${toolName}: ${file}`,
  toolName,
  input: { file_path: file, content: "x" },
});
const patch = (files: string[]): ApprovalAsk => ({
  kind: "permission",
  title: "apply_patch",
  toolName: "apply_patch",
  input: { changes: files.map((path) => ({ path, kind: "add" })) },
});

/** A driver that asks `asks` one after the other and reports each decision as its text. */
function askingInOrder(asks: readonly ApprovalAsk[], readOnly: boolean) {
  let launched = 0;
  const driver = scriptedDriver(async (_request, sink) => {
    launched++;
    const outcomes: ApprovalDecision[] = [];
    for (const ask of asks) outcomes.push(await sink.requestApproval(ask));
    return { text: JSON.stringify(outcomes) };
  });
  if (readOnly) {
    const { capabilities } = driver.descriptor;
    (driver as { descriptor: unknown }).descriptor = {
      ...driver.descriptor,
      capabilities: { ...capabilities, policy: { ...capabilities.policy, sandbox: ["read_only"] } },
    };
  }
  return { driver, launched: () => launched };
}

async function run(asks: readonly ApprovalAsk[], policy: Policy) {
  const requests: ApprovalRequest[] = [];
  const { driver, launched } = askingInOrder(asks, policy.sandbox === "read_only");
  const agent = new Agent(driver, {
    onApproval: (request) => {
      requests.push(request);
      request.deny("asked");
    },
  });
  const stream = agent.stream("p", { policy });
  const events: AgentEvent[] = [];
  for await (const event of stream) events.push(event);
  const verdict = await stream.result().catch((error: unknown) => error);
  await agent.close();
  const decisions = verdict instanceof Error ? verdict : (JSON.parse((verdict as { text: string }).text) as ApprovalDecision[]);
  return { events, requests, decisions, launched: launched() };
}

const notices = (events: readonly AgentEvent[], kind: string) =>
  events.flatMap((e) => (e.type === "notice" && e.kind === kind ? [e.data ?? {}] : []));

let root: string | undefined;
afterEach(() => {
  if (root) rmSync(root, { recursive: true, force: true });
  root = undefined;
});

describe("policy.approvals.rules: rules known before the run", () => {
  it("acceptEdits(folder): edits inside run unasked (notices carry the rule), an edit outside and a command are asked", async () => {
    root = mkdtempSync(join(tmpdir(), "policy-rules-"));
    const repo = join(root, "repo");
    mkdirSync(repo);
    const asks = [
      write(join(repo, "a.txt")),
      patch([join(repo, "b.txt"), join(repo, "src", "c.txt")]),
      write(join(root, "out.txt")),
      bash("ls"),
    ];
    const { events, requests, decisions } = await run(asks, { approvals: { permission: "ask", rules: acceptEdits(repo) } });
    expect(decisions).toEqual([
      { outcome: "approve" },
      { outcome: "approve" },
      { outcome: "deny", reason: "asked" },
      { outcome: "deny", reason: "asked" },
    ]);
    expect(requests.map((r) => r.title)).toEqual([`Write: ${join(root, "out.txt")}`, "Bash: ls"]);
    const resolved = notices(events, "approval.resolved");
    expect(resolved.map((d) => [d.outcome, d.rule, d.scope])).toEqual([
      ["approved", { toolName: "Write", pathPrefix: repo }, "run"],
      ["approved", { toolName: "apply_patch", pathPrefix: repo }, "run"],
      ["denied", undefined, undefined],
      ["denied", undefined, undefined],
    ]);
    expect(notices(events, "approval.requested").map((d) => d.rule)).toEqual([
      { toolName: "Write", pathPrefix: repo },
      { toolName: "apply_patch", pathPrefix: repo },
      undefined,
      undefined,
    ]);
  });

  it("a link inside the folder that leads out does not match, nor does '..' out of it", async () => {
    root = mkdtempSync(join(tmpdir(), "policy-rules-"));
    const repo = join(root, "repo");
    mkdirSync(repo);
    mkdirSync(join(root, "outside"));
    symlinkSync(join(root, "outside"), join(repo, "link"));
    const asks = [write(join(repo, "link", "x.txt")), write(join(repo, "..", "y.txt")), write(join(repo, "ok.txt"))];
    const { requests, decisions } = await run(asks, { approvals: { rules: acceptEdits(repo) } });
    expect(requests).toHaveLength(2);
    expect(decisions).toEqual([{ outcome: "deny", reason: "asked" }, { outcome: "deny", reason: "asked" }, { outcome: "approve" }]);
  });

  it("a deny rule answers with its reason (default 'denied by policy rule') and wins over an allow that matches too", async () => {
    const { requests, decisions } = await run([bash("rm -rf build"), bash("npm test"), bash("git push")], {
      approvals: {
        permission: "ask",
        rules: [
          { toolName: "Bash", outcome: "approve" },
          { toolName: "Bash", commandPrefix: "rm", outcome: "deny", reason: "no deleting" },
          { toolName: "Bash", command: "git push", outcome: "deny" },
        ],
      },
    });
    expect(requests).toEqual([]);
    expect(decisions).toEqual([
      { outcome: "deny", reason: "no deleting" },
      { outcome: "approve" },
      { outcome: "deny", reason: "denied by policy rule" },
    ]);
  });

  it("an auto mode decides before the rules, as it does before remembered ones", async () => {
    const { decisions, requests } = await run([bash("ls")], {
      approvals: { permission: "auto_deny", rules: [{ toolName: "Bash", outcome: "deny", reason: "never ls" }] },
    });
    expect(decisions).toEqual([{ outcome: "deny", reason: "denied by policy" }]);
    expect(requests).toEqual([]);
  });

  it.each([
    ["a deny rule under auto_approve", "auto_approve", "deny", "approves every call", "approves the rest"],
    ["an approve rule under auto_deny", "auto_deny", "approve", "denies every call", "denies the rest"],
  ] as const)(
    "%s, which the auto mode would decide against before consulting it, is InvalidPolicyError (field approvals.rules[i].outcome) before launch, with the way out",
    async (_name, permission, outcome, decides, hint) => {
      const refused = await run([bash("rm -rf x")], {
        approvals: {
          permission,
          rules: [
            { toolName: "Read", outcome: permission === "auto_approve" ? "approve" : "deny" },
            { toolName: "Bash", commandPrefix: "rm", outcome },
          ],
        },
      });
      expect(refused.launched).toBe(0);
      expect(refused.decisions).toBeInstanceOf(InvalidPolicyError);
      expect(refused.decisions).toMatchObject({ field: "approvals.rules[1].outcome", value: outcome });
      const message = (refused.decisions as Error).message;
      expect(message).toContain(`under approvals.permission "${permission}", which ${decides}`);
      expect(message).toContain(`use permission "ask" with the rules and an onApproval that ${hint}`);
      expect(message.includes("it is not a sandbox")).toBe(outcome === "deny");
    },
  );

  it.each([
    ["unset", {}, "unset"],
    ["inherit", { permission: "inherit" as const }, '"inherit"'],
  ])(
    "a deny rule with permission %s, where the CLI's own configuration decides what it asks, is InvalidPolicyError (field approvals.rules[i].outcome) before launch, hinting permission ask; an allow rule stays accepted",
    async (_name, modes, shown) => {
      const refused = await run([bash("cat secret.txt")], {
        approvals: {
          ...modes,
          rules: [
            { toolName: "Write", outcome: "approve" },
            { toolName: "Bash", commandPrefix: "cat", outcome: "deny" },
          ],
        },
      });
      expect(refused.launched).toBe(0);
      expect(refused.decisions).toBeInstanceOf(InvalidPolicyError);
      expect(refused.decisions).toMatchObject({ field: "approvals.rules[1].outcome", value: "deny" });
      const message = (refused.decisions as Error).message;
      expect(message).toContain(`with approvals.permission ${shown} the CLI's own configuration decides what it asks`);
      expect(message).toContain(
        'use permission "ask" with the rules and an onApproval that approves the rest (a deny rule is matched conservatively; it is not a sandbox)',
      );
      // Allow rules only answer asks the CLI makes: accepted there (as acceptEdits is).
      const allowed = await run([bash("ls")], {
        approvals: { ...modes, rules: [{ toolName: "Bash", commandPrefix: "ls", outcome: "approve" }] },
      });
      expect(allowed.decisions).toEqual([{ outcome: "approve" }]);
    },
  );

  it("a command rule matches the command a shell wrapper runs (codex asks about /bin/bash -lc '<command>'), an allow never a compound one inside it (a deny does, conservatively)", async () => {
    const wrapped = (command: string): ApprovalAsk => ({
      kind: "permission",
      title: `shell: ${command}`,
      toolName: "shell",
      input: { command, cwd: "/repo" },
    });
    const { requests, decisions } = await run(
      [
        wrapped("/bin/bash -lc 'cat secret.txt'"),
        wrapped("/bin/bash -lc 'cat notes.txt && rm -rf x'"),
        wrapped("/bin/bash -lc 'git push'"),
        wrapped(`/bin/bash -lc 'echo '"'"'a'"'"''`),
        wrapped(`/bin/bash -lc "echo 'a'"`),
        wrapped(`/bin/bash -lc "echo \\"it's\\""`),
        wrapped(`/bin/bash -lc "echo 'a' $HOME"`),
        { kind: "permission", title: "shell", toolName: "shell", input: { command: ["bash", "-lc", "cat other.txt"], cwd: "/repo" } },
        wrapped("/bin/bash -lc cat secret.txt"),
      ],
      {
        approvals: {
          permission: "ask",
          rules: [
            { toolName: "shell", commandPrefix: "cat", outcome: "deny", reason: "no reading" },
            { toolName: "shell", command: "git push", outcome: "deny" },
            { toolName: "shell", command: "echo 'a'", outcome: "approve" },
            { toolName: "shell", command: `echo "it's"`, outcome: "approve" },
            { toolName: "shell", command: "echo 'a' $HOME", outcome: "approve" },
          ],
        },
      },
    );
    expect(decisions).toEqual([
      { outcome: "deny", reason: "no reading" },
      { outcome: "deny", reason: "no reading" },
      { outcome: "deny", reason: "denied by policy rule" },
      { outcome: "approve" },
      { outcome: "approve" },
      { outcome: "approve" },
      { outcome: "deny", reason: "asked" },
      { outcome: "deny", reason: "no reading" },
      { outcome: "deny", reason: "no reading" },
    ]);
    expect(requests.map((r) => (r.input as { command: unknown }).command)).toEqual([`/bin/bash -lc "echo 'a' $HOME"`]);
  });

  it.each(["Bash", "shell", "terminal/create"])(
    "a pathPrefix rule on the shell tool %s, whose asks name a command and no file, can never match: InvalidPolicyError (approvals.rules[i].pathPrefix) before launch, hinting a command rule or a sandbox",
    async (toolName) => {
      const refused = await run([bash("cat /work/secret/key")], {
        approvals: {
          permission: "ask",
          rules: [
            { toolName: "Read", pathPrefix: "/work/secret", outcome: "deny" },
            { toolName, pathPrefix: "/work/secret", outcome: "deny" },
          ],
        },
      });
      expect(refused.launched).toBe(0);
      expect(refused.decisions).toBeInstanceOf(InvalidPolicyError);
      expect(refused.decisions).toMatchObject({ field: "approvals.rules[1].pathPrefix", value: "/work/secret" });
      expect((refused.decisions as Error).message).toContain("can never match");
      expect((refused.decisions as Error).message).toContain("use a command or commandPrefix rule for the commands, or a sandbox");
    },
  );

  it("the driver's sink tells which calls a deny rule names: an up-front one from the start, a remembered one from the answer on", async () => {
    const read = (file: string) => ({ file_path: file });
    const seen: boolean[][] = [];
    const driver = scriptedDriver(async (_request, sink) => {
      const denies = (): boolean[] => [
        sink.ruleDenies?.("Read", read("/work/secret/key")) ?? false,
        sink.ruleDenies?.("Read", read("/work/notes.txt")) ?? false,
        sink.ruleDenies?.("Grep", { path: "/work/private" }) ?? false,
      ];
      seen.push(denies());
      await sink.requestApproval({ kind: "permission", title: "Grep", toolName: "Grep", input: { path: "/work/private/a" } });
      seen.push(denies());
      return { text: "done" };
    });
    const agent = new Agent(driver, {
      onApproval: (request) => request.deny("no", { remember: { toolName: "Grep", pathPrefix: "/work/private" } }),
    });
    await agent.run("p", {
      policy: { approvals: { permission: "ask", rules: [{ toolName: "Read", pathPrefix: "/work/secret", outcome: "deny" }] } },
    });
    await agent.close();
    expect(seen).toEqual([
      [true, false, false],
      [true, false, true],
    ]);
  });

  it("under sandbox read_only an allow rule is InvalidPolicyError before launch; a deny rule is fine", async () => {
    const refused = await run([bash("ls")], {
      sandbox: "read_only",
      approvals: { permission: "ask", rules: [{ toolName: "Bash", outcome: "approve" }] },
    });
    expect(refused.decisions).toBeInstanceOf(InvalidPolicyError);
    expect(refused.decisions).toMatchObject({ field: "approvals.rules[0].outcome", value: "approve" });
    expect((refused.decisions as Error).message).toContain("read_only");
    expect(refused.launched).toBe(0);
    const denied = await run([bash("ls")], {
      sandbox: "read_only",
      approvals: { permission: "ask", rules: [{ toolName: "Bash", outcome: "deny" }] },
    });
    expect(denied.decisions).toEqual([{ outcome: "deny", reason: "denied by policy rule" }]);
  });

  it("a malformed rule is InvalidPolicyError naming the field, at the start", () => {
    const refuse = (rules: unknown) => {
      try {
        checkRunInput("p", { policy: { approvals: { rules } } }, { driver: "claude" });
      } catch (error) {
        return error as InvalidPolicyError;
      }
      throw new Error("accepted");
    };
    expect(refuse({ toolName: "Bash" })).toMatchObject({ field: "approvals.rules" });
    expect(refuse([{ toolName: "", outcome: "approve" }])).toMatchObject({ field: "approvals.rules[0].toolName" });
    expect(refuse([{ toolName: "Edit", pathPrefix: "src", outcome: "approve" }])).toMatchObject({
      field: "approvals.rules[0].pathPrefix",
      value: "src",
    });
    expect(refuse([{ toolName: "Bash", command: "a", commandPrefix: "a", outcome: "approve" }])).toMatchObject({
      field: "approvals.rules[0].commandPrefix",
    });
    expect(refuse([{ toolName: "Bash", commandPrefix: "FOO=1 ls", outcome: "approve" }])).toMatchObject({
      field: "approvals.rules[0].commandPrefix",
    });
    expect(refuse([{ toolName: "Bash" }])).toMatchObject({ field: "approvals.rules[0].outcome" });
    expect(refuse([{ toolName: "Bash", outcome: "allow" }])).toMatchObject({ field: "approvals.rules[0].outcome", value: "allow" });
    expect(refuse([{ toolName: "Bash", outcome: "approve", reason: "x" }])).toMatchObject({ field: "approvals.rules[0].reason" });
    expect(refuse([{ toolName: "Bash", outcome: "approve", scope: "run" }])).toMatchObject({ field: "approvals.rules[0].scope" });
    expect(refuse([{ toolName: "Bash", outcome: "approve" }, null])).toMatchObject({ field: "approvals.rules[1]" });
  });

  it("a rule that could never match is InvalidPolicyError: a commandPrefix holding a shell operator or expansion, a NUL in any field", () => {
    const refuse = (rule: Record<string, unknown>) => {
      try {
        checkRunInput("p", { policy: { approvals: { rules: [rule] } } }, { driver: "claude" });
      } catch (error) {
        return error as InvalidPolicyError;
      }
      return undefined;
    };
    // A command holding any of these never matches a prefix, so a prefix holding one matches nothing.
    for (const commandPrefix of ["npm test && npm run build", "git log | head", "ls $HOME", "cat ~/x", "echo 'a b'", "ls *.ts"]) {
      const error = refuse({ toolName: "Bash", commandPrefix, outcome: "deny" });
      expect(error, commandPrefix).toMatchObject({ field: "approvals.rules[0].commandPrefix", value: commandPrefix });
      expect(error?.message).toContain("never matches a prefix");
    }
    for (const field of ["toolName", "command", "commandPrefix"])
      expect(refuse({ toolName: "Bash", [field]: "ls\0-la", outcome: "approve" }), field).toMatchObject({
        field: `approvals.rules[0].${field}`,
      });
    expect(refuse({ toolName: "Edit", pathPrefix: "/repo\0/src", outcome: "approve" })).toMatchObject({
      field: "approvals.rules[0].pathPrefix",
    });
    expect(refuse({ toolName: "Bash", outcome: "deny", reason: "no\0" })).toMatchObject({ field: "approvals.rules[0].reason" });
    // An exact command matches a compound command as it is, so it may hold operators.
    expect(refuse({ toolName: "Bash", command: "npm test && npm run build", outcome: "approve" })).toBeUndefined();
    expect(refuse({ toolName: "Bash", commandPrefix: "npm test", outcome: "approve" })).toBeUndefined();
  });
});

describe("acceptEdits", () => {
  it("gives an allow per file tool and folder", () => {
    expect(acceptEdits("/repo")).toEqual(EDIT_TOOLS.map((toolName) => ({ toolName, pathPrefix: "/repo", outcome: "approve" })));
    expect(EDIT_TOOLS).toEqual(["Edit", "Write", "MultiEdit", "NotebookEdit", "apply_patch"]);
    expect(acceptEdits(["/a", "/b"], { toolNames: ["edit_file"] })).toEqual([
      { toolName: "edit_file", pathPrefix: "/a", outcome: "approve" },
      { toolName: "edit_file", pathPrefix: "/b", outcome: "approve" },
    ]);
  });

  it("refuses a relative folder, no folder and an empty tool name", () => {
    expect(() => acceptEdits("src")).toThrow(/absolute path/);
    expect(() => acceptEdits([])).toThrow(/at least one folder/);
    expect(() => acceptEdits("/a", { toolNames: [""] })).toThrow(/non-empty/);
  });
});
