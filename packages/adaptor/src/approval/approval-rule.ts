import * as path from "node:path";
import { InvalidOptionError } from "@adaptor/errors";
import type { ApprovalDecision } from "@adaptor/driver";

/**
 * Which later `permission` asks an answer applies to, decided by the SDK (never written to a CLI's
 * own settings): asks about the tool `toolName` and, when set, the shell command or the files they
 * name. A rule without `command`, `commandPrefix` or `pathPrefix` matches every ask about the tool.
 * Each {@link ApprovalRequest} lists the rules that fit it as `suggestions`.
 */
export interface ApprovalRule {
  /** The tool, exactly as the ask names it (`request.toolName`), e.g. `"Bash"`, `"shell"`, `"Edit"`. */
  readonly toolName: string;
  /** The shell command, exactly (`request.input.command`; an argv array is joined with spaces). */
  readonly command?: string;
  /**
   * A shell command's start: matches the command equal to it, or it followed by a space and more
   * words (`"npm test"` matches `npm test -- --watch`, not `npm tests`). A command holding a shell
   * operator or substitution (`;`, `&`, `|`, `<`, `>`, a backtick, `$(`, a newline) never matches a
   * prefix, so `npm test && rm -rf x` is asked.
   */
  readonly commandPrefix?: string;
  /**
   * An absolute folder: matches an ask whose every file (`file_path`, `path`, `notebook_path`, a
   * patch's files) is this folder or inside it, compared after resolving `.` and `..`. An ask that
   * names no file, or a relative one, does not match.
   */
  readonly pathPrefix?: string;
}

/** How long a remembered rule lasts: `run`, the rest of the run that answered. */
export type ApprovalRuleScope = "run";

/**
 * A rule to remember with an answer (`approve({ remember })`, `deny(reason, { remember })`): the
 * {@link ApprovalRule} (one of `request.suggestions`, or one the host writes) and its scope
 * (default `run`).
 */
export interface RememberRule extends ApprovalRule {
  /** How long it lasts; default `"run"`. */
  readonly scope?: ApprovalRuleScope;
}

/** A rule a run remembers, with the answer it gives. */
export interface RememberedRule {
  readonly rule: ApprovalRule;
  readonly scope: ApprovalRuleScope;
  /** `approve` or `deny` (with the host's reason). */
  readonly decision: Extract<ApprovalDecision, { outcome: "approve" } | { outcome: "deny" }>;
}

/** What a rule is compared with: the ask's kind, tool and input. */
export interface RuleSubject {
  readonly kind: string;
  readonly toolName?: string | undefined;
  readonly input?: unknown;
}

/** Shell operators and substitutions after which a prefix says nothing about what runs. */
const SHELL_OPERATOR = /[;&|<>`\n\r]|\$\(/;

/** The shell command of an ask's input: `command` as a string, or an argv array joined with spaces. */
export function commandOf(input: unknown): string | undefined {
  if (typeof input !== "object" || input === null) return undefined;
  const command = (input as { command?: unknown }).command;
  if (typeof command === "string") return command;
  if (Array.isArray(command) && command.length > 0 && command.every((part) => typeof part === "string")) return command.join(" ");
  return undefined;
}

/**
 * The files an ask's input names: `file_path`, `notebook_path`, `path` (Claude's file tools, most
 * ACP agents), a Codex patch's `changes[].path` or `fileChanges` keys. Empty when it names none.
 */
export function pathsOf(input: unknown): string[] {
  if (typeof input !== "object" || input === null) return [];
  const fields = input as Record<string, unknown>;
  const paths: string[] = [];
  for (const field of ["file_path", "notebook_path", "path"]) {
    const value = fields[field];
    if (typeof value === "string" && value !== "") paths.push(value);
  }
  if (Array.isArray(fields["changes"])) {
    for (const change of fields["changes"] as unknown[]) {
      const value = typeof change === "object" && change !== null ? (change as { path?: unknown }).path : undefined;
      if (typeof value === "string" && value !== "") paths.push(value);
    }
  }
  const fileChanges = fields["fileChanges"];
  if (typeof fileChanges === "object" && fileChanges !== null) paths.push(...Object.keys(fileChanges));
  return paths;
}

/** Whether `file` is `folder` or inside it (both absolute; `.` and `..` resolved). */
function inside(file: string, folder: string): boolean {
  if (!path.isAbsolute(file)) return false;
  const relative = path.relative(path.resolve(folder), path.resolve(file));
  return relative === "" || (!relative.startsWith("..") && !path.isAbsolute(relative));
}

/** Whether `rule` matches the ask `subject` (only `permission` asks match). */
export function ruleMatches(rule: ApprovalRule, subject: RuleSubject): boolean {
  if (subject.kind !== "permission" || subject.toolName !== rule.toolName) return false;
  if (rule.command !== undefined || rule.commandPrefix !== undefined) {
    const command = commandOf(subject.input);
    if (command === undefined) return false;
    if (rule.command !== undefined && command !== rule.command) return false;
    if (rule.commandPrefix !== undefined) {
      if (SHELL_OPERATOR.test(command)) return false;
      if (command !== rule.commandPrefix && !command.startsWith(`${rule.commandPrefix} `)) return false;
    }
  }
  if (rule.pathPrefix !== undefined) {
    const paths = pathsOf(subject.input);
    if (paths.length === 0 || !paths.every((file) => inside(file, rule.pathPrefix!))) return false;
  }
  return true;
}

/**
 * The rules a host could remember for the ask `subject`: for a shell command, its exact command;
 * for files, the folder of the first one (when every file is inside it and absolute); else the
 * tool alone. Empty for a `question`, a `plan_review` and an ask about no tool.
 */
export function suggestRules(subject: RuleSubject): ApprovalRule[] {
  const toolName = subject.toolName;
  if (subject.kind !== "permission" || toolName === undefined || toolName === "") return [];
  const command = commandOf(subject.input);
  if (command !== undefined) return [{ toolName, command }];
  const paths = pathsOf(subject.input);
  if (paths.length > 0) {
    const folder = path.isAbsolute(paths[0]!) ? path.dirname(path.resolve(paths[0]!)) : undefined;
    if (folder !== undefined && paths.every((file) => inside(file, folder))) return [{ toolName, pathPrefix: folder }];
  }
  return [{ toolName }];
}

/**
 * Checks a rule to remember with an answer to `subject`: a plain object with a non-empty
 * `toolName`, string `command`/`commandPrefix` (not both), an absolute `pathPrefix`, a `scope` of
 * `run`, and matching the ask it answers.
 * @returns the `InvalidOptionError` (subject `subject`, field `remember` or `remember.<field>`), or undefined.
 */
export function rememberError(
  remember: unknown,
  ask: RuleSubject & { readonly id: string },
  subject: string,
): InvalidOptionError | undefined {
  const refuse = (field: string, reason: string): InvalidOptionError => new InvalidOptionError({ subject, field, reason });
  if (typeof remember !== "object" || remember === null || Array.isArray(remember))
    return refuse("remember", "must be a rule object (one of request.suggestions, or { toolName, command | commandPrefix | pathPrefix })");
  const rule = remember as Record<string, unknown>;
  if (rule["scope"] !== undefined && rule["scope"] !== "run")
    return refuse("remember.scope", `must be "run", got ${JSON.stringify(rule["scope"])}`);
  if (typeof rule["toolName"] !== "string" || rule["toolName"] === "") return refuse("remember.toolName", "must be a non-empty string");
  for (const field of ["command", "commandPrefix", "pathPrefix"]) {
    const value = rule[field];
    if (value !== undefined && (typeof value !== "string" || value === ""))
      return refuse(`remember.${field}`, "must be a non-empty string");
  }
  if (rule["command"] !== undefined && rule["commandPrefix"] !== undefined)
    return refuse("remember.commandPrefix", "cannot be given with command (one of them)");
  if (typeof rule["pathPrefix"] === "string" && !path.isAbsolute(rule["pathPrefix"]))
    return refuse("remember.pathPrefix", "must be an absolute path");
  if (ask.kind !== "permission") return refuse("remember", `cannot be remembered for a ${ask.kind} (only permission asks)`);
  if (!ruleMatches(rule as unknown as ApprovalRule, ask))
    return refuse("remember", `does not match approval ${ask.id} (${ask.toolName ?? ask.kind}); a rule must match the request it answers`);
  return undefined;
}

/** The rule part of `remember` (its scope left out), copied. */
export function ruleOf(remember: RememberRule): ApprovalRule {
  return {
    toolName: remember.toolName,
    ...(remember.command !== undefined ? { command: remember.command } : {}),
    ...(remember.commandPrefix !== undefined ? { commandPrefix: remember.commandPrefix } : {}),
    ...(remember.pathPrefix !== undefined ? { pathPrefix: remember.pathPrefix } : {}),
  };
}

/**
 * The rules a run remembers, in the order given. A deny rule wins over an allow rule that matches
 * the same ask (a host's "never" beats its "always").
 */
export class ApprovalRules {
  readonly #rules: RememberedRule[] = [];

  /** Remembers `rule`. */
  add(rule: RememberedRule): void {
    this.#rules.push(rule);
  }

  /** The remembered rule that answers `subject`, or undefined. */
  match(subject: RuleSubject): RememberedRule | undefined {
    const matching = this.#rules.filter((remembered) => ruleMatches(remembered.rule, subject));
    return matching.find((remembered) => remembered.decision.outcome === "deny") ?? matching[0];
  }

  /** The rules remembered so far, oldest first. */
  list(): readonly RememberedRule[] {
    return [...this.#rules];
  }
}
