import * as path from "node:path";
import { InvalidOptionError } from "@adaptor/errors";
import { closestOption } from "@adaptor/errors/internal";
import { realDirectory, TOOL_NAME_MAX_LENGTH } from "@adaptor/driver/kit";
import quote from "shell-quote/quote.js";
import type { ApprovalDecision } from "@adaptor/driver";

/**
 * Which later `permission` asks an answer applies to, decided by the SDK (never written to a CLI's
 * own settings): asks about the tool `toolName` (every shell call when it is left out, with a
 * command condition) and, when set, the shell command or the files they name. A rule without
 * `command`, `commandPrefix` or `pathPrefix` matches every ask about the tool. A condition the ask
 * gives nothing to compare with fails closed: a deny matches a call of its tool that carries no command (or names no
 * file), an allow does not (the call is asked). Each {@link ApprovalRequest} lists the rules that
 * fit it as `suggestions`.
 */
export interface ApprovalRule {
  /**
   * The tool, exactly as the ask names it (`request.toolName`), e.g. `"Bash"`, `"shell"`, `"Edit"`;
   * a deny also matches an ask whose name is a title starting with it and `": "` (an ACP agent
   * that sends no tool name, only a title such as `"execute_bash: rm -f x"`). An ask's name of 199
   * characters or more may be a longer one cut to its first 200, which other tools' names may share:
   * an allow never matches it by name (the call is asked, and it is offered no suggestion), a deny
   * matches it when it starts the rule's `toolName`. May be left out when the rule has a `command` or `commandPrefix`: the rule then applies to
   * every shell call (an ACP `execute` kind, `Bash`, `shell`, `terminal/create`), and a deny also to
   * every other call that carries a command (an MCP tool's), whatever its tool's name (an ACP agent may name a tool by a title, such as
   * `"execute_bash: rm -f x"`). A rule with only a `pathPrefix` must name its tool.
   */
  readonly toolName?: string;
  /**
   * The shell command, exactly (`request.input.command`). An argv (an array of strings, or a
   * `command` followed by an `args` array of strings, as an ACP `terminal/create` gives it) is one
   * POSIX shell line, a word made only of letters, digits and `_@%+=:,./-` as it is (`=` not in the
   * first word), any other quoted as the `shell-quote` package's `quote` does
   * (`["git", "log", "--format=%H"]` is `git log --format=%H`, `["git", "commit", "-m", "a b"]` is
   * `git commit -m 'a b'`, `["echo", "x; rm y"]` is `echo 'x; rm y'`): its suggestion gives that line. A blank command is none, and so is one
   * whose `args` (or `command` array) holds anything but strings, or is not an array: a deny fails
   * closed on it, an allow asks. A shell wrapper around one command (`/bin/bash -lc 'cat secret.txt'`, as codex asks) is also
   * compared by the command inside, for this field and {@link commandPrefix}.
   */
  readonly command?: string;
  /**
   * A shell command's start: matches the command equal to it, or it followed by a space and more
   * words (`"npm test"` matches `npm test -- --watch`, not `npm tests`; the words after it are the
   * host's to weigh: `npm test --script-shell=x` matches too). A command holding a shell operator,
   * substitution, expansion, quote or parenthesis (`;`, `&`, `|`, `<`, `>`, a backtick, `$`, `~`,
   * `*`, `?`, `[`, `{`, `(`, `)`, `\`, `'`, `"`, a newline) never matches an allow prefix, so
   * `npm test && rm -rf x` and `npm test $HOME` are asked. A deny rule's `command` or prefix is
   * matched conservatively: a command matches when the rule's first word is any of its words (by
   * the last part of its path) and the rule's other words follow in order (`rm -rf x; true`,
   * `/bin/rm -rf x`, `FOO=1 rm -rf x`, `sudo rm -rf x`, `chrt 0 rm -rf x`, even `grep rm notes.txt`
   * match a deny of `rm`; `rmdir x` does not); a deny rule is not a sandbox all the same (a script
   * that runs `rm` is not found).
   * A prefix may not start with a variable assignment (`FOO=1`) nor hold one of those characters
   * itself (it could never match: give the whole command as `command`); no field of a rule may
   * hold a NUL character.
   */
  readonly commandPrefix?: string;
  /**
   * An absolute folder: matches an ask whose every file (`file_path`, `path`, `notebook_path`, a
   * patch's files, and every other string under a field named like a path, file, folder or
   * destination, at any depth) is this folder or inside it, compared after resolving `.`, `..` and
   * the symbolic links of the part that exists, a link whose target does not exist yet followed (a
   * link inside the folder that leads out does not match). An ask that names no file, or a relative
   * one, does not match an allow; a deny reads it in the run's working directory, and matches any
   * file inside the folder or a folder holding it (docs/events.md, "Remembered rules"). So a shell
   * tool's ask
   * (`Bash`, `shell`, `terminal/create`: a command, no file) never does: a rule giving both is
   * refused (`InvalidPolicyError` before launch, `InvalidOptionError` for `remember`); deny the
   * commands with a `command` or `commandPrefix` rule, or confine them with a sandbox.
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
  /**
   * For a command rule: the answered ask's input but its `command` and descriptions (its working
   * directory, arguments, environment, background flag), as canonical JSON ({@link contextOf}); a
   * later allow matches only with the same, so "always allow `npm test`" never allows it in another
   * folder or environment. A deny ignores it: "never `rm`" holds in every folder and environment.
   * An allow without it (an up-front rule, a tool or path rule) never matches a call carrying
   * environment variables of its own (a non-empty `env`).
   */
  readonly context?: string | undefined;
  /**
   * For a path rule: its folder with symbolic links resolved when the rule was remembered
   * (the driver kit's `realDirectory`). Later asks are compared with this folder, so a folder swapped for a link
   * to elsewhere after the answer does not carry the rule there.
   */
  readonly realFolder?: string | undefined;
  readonly scope: ApprovalRuleScope;
  /** `approve` or `deny` (with the host's reason). */
  readonly decision: Extract<ApprovalDecision, { outcome: "approve" } | { outcome: "deny" }>;
}

/** What a rule is compared with: the ask's kind, tool and input, and the run's working directory. */
export interface RuleSubject {
  readonly kind: string;
  readonly toolName?: string | undefined;
  readonly input?: unknown;
  /**
   * The ACP kind of the call (`request.details.toolKind`), when the ask gives one: an `execute`
   * call is a shell call even when its input carries no command.
   */
  readonly toolKind?: string | undefined;
  /**
   * The working directory of the run that asks (the CLI's), when known: a deny path rule reads an
   * ask naming no file as naming it (a search of the working directory) and resolves a relative
   * file against it. Undefined: such asks match every deny path rule of the tool (it fails closed).
   */
  readonly cwd?: string | undefined;
}

/**
 * Shell operators, substitutions, expansions, quotes and parentheses (a subshell, zsh's glob
 * qualifier `x(e:cmd:)` and process substitution `=(cmd)`) after which a prefix says nothing about
 * what runs.
 */
const SHELL_OPERATOR = /[;&|<>`\n\r\v\f$~*?[{()\\'"]/;
/** Input fields that only describe a command to a person (the model's words), compared by no rule. */
const NOTE_FIELDS = ["description", "justification", "reason", "title"];
/** Field names whose strings are files or folders an ask acts on. */
const PATH_FIELD = /path|file|dir|folder|root|dest|target|source|src|cwd/i;
/** Field names {@link PATH_FIELD} matches whose strings are contents, not paths (NotebookEdit's cell text). */
const CONTENT_FIELDS = new Set(["new_source", "old_source"]);

/**
 * The argv of an ask's input, when it gives its command as words: `command` as an array of strings
 * (legacy Codex), or a `command` string (or array of strings) followed by a non-empty `args` array
 * of strings (an ACP `terminal/create`, an agent's `{ command: "sh", args: ["-c", "rm x"] }`).
 * Undefined for a command given as one string without arguments (`args` absent, `null` or empty: a
 * shell line, as an ACP host runs `terminal/create` without `args` through `/bin/sh -c`), or none.
 * Null when the command or its `args` are given in another shape (`args` a string, a number, an
 * object, an array holding anything but strings; a `command` array holding anything but strings):
 * what the agent runs from it is not known, so no rule reads a command from it.
 */
function argvOf(input: unknown): string[] | null | undefined {
  if (typeof input !== "object" || input === null) return undefined;
  const { command, args } = input as { command?: unknown; args?: unknown };
  if (typeof command !== "string" && !Array.isArray(command)) return undefined;
  const words = (value: unknown): value is string[] => Array.isArray(value) && value.every((part) => typeof part === "string");
  if ((Array.isArray(command) && !words(command)) || (args !== undefined && args !== null && !words(args))) return null;
  const rest = args ?? [];
  if (Array.isArray(command)) return command.length > 0 ? [...command, ...rest] : undefined;
  return rest.length > 0 ? [command, ...rest] : undefined;
}

/**
 * Whether the ask's input gives a command in a shape no rule reads ({@link argvOf} null): a deny
 * with a command condition fails closed on it, an allow does not match it.
 */
function unreadableCommand(input: unknown): boolean {
  return argvOf(input) === null;
}

/**
 * Characters a word of a POSIX shell line may be made of and read as it is, unquoted (the set
 * Python's `shlex.quote` leaves alone): `=` too, except in a line's first word (an assignment there).
 */
const PLAIN_WORD = /^[\w@%+=:,./-]+$/;

/**
 * `argv` as one POSIX shell line whose words are exactly `argv`: a word the shell reads as it is
 * ({@link PLAIN_WORD}: `--format=%H`, `pkg@1.2.3`, `http://host:80/a,b`) stays as it is, so a rule
 * reads as a person writes it; any other is quoted by `shell-quote`'s `quote` (`'a b'`, `'x; rm y'`).
 */
function shellLine(argv: readonly string[]): string {
  return argv.map((word, index) => (PLAIN_WORD.test(word) && !(index === 0 && word.includes("=")) ? word : quote([word]))).join(" ");
}

/**
 * The shell command of an ask's input: `command` as a string, or its argv ({@link argvOf}: an
 * array, or `command` and `args`) as one POSIX shell line, each word quoted where the shell needs it
 * ({@link shellLine}: `["git", "commit", "-m", "a b"]` is `git commit -m 'a b'`,
 * `["echo", "x; rm y"]` is `echo 'x; rm y'`), so the line's words are exactly the argv; undefined
 * when there is none, it is blank (nothing to compare with) or it is unreadable ({@link argvOf}).
 */
export function commandOf(input: unknown): string | undefined {
  if (typeof input !== "object" || input === null) return undefined;
  const argv = argvOf(input);
  if (argv === null) return undefined;
  const command = argv !== undefined ? shellLine(argv) : (input as { command?: unknown }).command;
  return typeof command === "string" && command.trim() !== "" ? command : undefined;
}

/** A shell a CLI wraps the model's command in (codex: `/bin/bash -lc '<command>'`). */
const WRAPPING_SHELL = /^(?:\/(?:usr\/)?bin\/)?(?:bash|sh|zsh)$/;
/** The flags of such a shell before the command it runs: `-c`, `-lc`, `-cl`. */
const COMMAND_FLAG = /^-(?:c|lc|cl)$/;
/**
 * One piece of a literal POSIX shell word: bare safe characters, a single-quoted run, `\'`, or a
 * double-quoted run without expansion (`$` and a backtick only escaped; `\` escaping `"`, `\`,
 * `$` or a backtick).
 */
const WORD_PIECE = /[A-Za-z0-9_./=:,+@%-]+|'([^']*)'|\\'|"((?:[^"\\$`]|\\["\\$`])*)"/y;

/**
 * The text of `word` when it is one literal shell word (see {@link WORD_PIECE}: codex quotes
 * `cat secret.txt` as `'cat secret.txt'` and `echo 'a b'` as `"echo 'a b'"`), undefined otherwise.
 */
function unquoted(word: string): string | undefined {
  const pieces = new RegExp(WORD_PIECE.source, "y");
  let text = "";
  while (pieces.lastIndex < word.length) {
    const piece = pieces.exec(word);
    if (piece === null) return undefined;
    const [whole, single, double] = piece;
    text += single ?? (double !== undefined ? double.replace(/\\(["\\$`])/g, "$1") : whole === "\\'" ? "'" : whole);
  }
  return word === "" ? undefined : text;
}

/**
 * The command a shell wrapper runs: `<shell> -lc <one quoted word>` (codex 0.171.0 asks about
 * `/bin/bash -lc 'cat secret.txt'` for the model's `cat secret.txt`), or the argv
 * `[<shell>, "-lc", <command>]` (an array, or `command` and `args`: {@link argvOf}); undefined for
 * any other command.
 */
function wrappedCommand(input: unknown): string | undefined {
  if (typeof input !== "object" || input === null) return undefined;
  const argv = argvOf(input);
  if (argv === null) return undefined;
  if (argv !== undefined) return argv.length === 3 && WRAPPING_SHELL.test(argv[0]!) && COMMAND_FLAG.test(argv[1]!) ? argv[2] : undefined;
  const command = (input as { command?: unknown }).command;
  if (typeof command !== "string") return undefined;
  const [shell, flag, ...rest] = command.split(" ");
  if (shell === undefined || flag === undefined || rest.length === 0 || !WRAPPING_SHELL.test(shell) || !COMMAND_FLAG.test(flag))
    return undefined;
  return unquoted(rest.join(" "));
}

/**
 * The commands a command rule is compared with: the ask's command ({@link commandOf}) and, when it
 * is a shell wrapper around one command, that command, so a rule names what the model asked to
 * run (`cat secret.txt`) whichever form the CLI asks in.
 */
export function commandsOf(input: unknown): string[] {
  const command = commandOf(input);
  if (command === undefined) return [];
  const inner = wrappedCommand(input);
  return inner === undefined || inner === command ? [command] : [command, inner];
}

/** The shells' word separators: blanks and the operators that end a command or start a nested one. */
const WORD_BREAK = /[\s;&|<>()`{}=$,]+/;

/** The last part of a command word's path (`/bin/rm` → `rm`). */
function basename(word: string): string {
  return word.slice(word.lastIndexOf("/") + 1);
}

/**
 * The command a deny rule is compared with: `command` with every shell wrapper the matcher can
 * read (`bash -lc '<command>'`, at any depth) taken off.
 */
function innermost(input: unknown): string | undefined {
  let command = commandOf(input);
  let next = input;
  for (let depth = 0; depth < 8 && command !== undefined; depth++) {
    const inner = wrappedCommand(next);
    if (inner === undefined) break;
    command = inner;
    next = { command: inner };
  }
  return command;
}

/**
 * Whether a deny `rule` (a `command` or `commandPrefix` one) names the ask's command, matched
 * conservatively, so a command that runs the denied program in a form the matcher cannot read is
 * denied too. The command is first unwrapped from the shell wrappers the matcher reads
 * ({@link wrappedCommand}). The rule then matches when its first word is any word of the command
 * (`rm -rf x; true`, `/bin/rm -rf x`, `FOO=1 rm -rf x`, `sudo rm -rf x`, `chrt 0 rm -rf x`,
 * `bash -lc $'rm -rf x'`, and also `grep rm notes.txt`), compared by basename after line
 * continuations (a backslash before a newline, with the newline) and then quotes and backslashes are
 * dropped (a deny of `/bin/rm` matches `rm -rf x` and `r\⏎m -rf x`), and its other words follow in
 * order. No list of launchers is kept: any program may run the words after it. A program the
 * command runs in a way no word shows (a script, a variable, an alias, a glob) is not found: a deny
 * rule is not a sandbox.
 */
function denyMatches(rule: ApprovalRule, input: unknown): boolean {
  const ruleText = rule.command ?? rule.commandPrefix;
  if (ruleText === undefined) return false;
  if (rule.command !== undefined && commandsOf(input).includes(rule.command)) return true;
  const command = innermost(input);
  // No command to compare with: the call cannot be shown not to run the denied one.
  if (command === undefined) return true;
  // A backslash before a newline continues the line: the shell joins the words around it (`r\⏎m` is `rm`).
  const loosely = (text: string): string[] =>
    text
      .replace(/\\\r?\n/g, "")
      .replace(/[\\'"]/g, "")
      .split(WORD_BREAK)
      .filter((word) => word !== "");
  const loose = loosely(command);
  const [head, ...rest] = loosely(ruleText);
  if (head === undefined) return false;
  // The earliest occurrence of the program leaves the most words for the rest to follow in.
  const at = loose.findIndex((word) => basename(word) === basename(head));
  if (at < 0) return false;
  let next = 0;
  for (let index = at + 1; index < loose.length && next < rest.length; index++) if (loose[index] === rest[next]) next++;
  return next === rest.length;
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

/** Input fields whose strings (or arrays of strings) name files by a glob pattern, whatever the tool: Claude Code's Grep `glob`, Gemini CLI's `include`. */
const GLOB_FIELDS = ["glob", "globs", "include", "includes"];
/** Tools whose `pattern` (or `patterns`) is a glob naming files, not a regular expression: Claude Code's `Glob`, Gemini CLI's `glob` (`FindFiles`). */
const GLOB_TOOL = /glob|find/i;
/** The characters at which a glob pattern stops naming a literal path (wildcards, classes, braces, extglob groups, escapes). */
const GLOB_CHAR = /[*?[\]{}()!\\]/;
/** After the first glob character: a `..` segment, or a brace alternative that is absolute or starts at home (the pattern may reach anywhere). */
const GLOB_ESCAPE = /(?:^|[/{,])\.\.(?:$|[/},])|[{,]\s*[/~]/;

/**
 * The folders (or files) the glob patterns of an ask reach: for each pattern, its literal part
 * before the first glob character cut back to the last `/` (`/repo/secret/*.pem` → `/repo/secret/`,
 * `../secret/*` → `../secret/`, `**` → the base itself), resolved against the ask's `path` (or
 * `dir_path`), itself resolved against `cwd` when relative. A pattern starting with `~` (the CLI's
 * home is not known here), or whose glob part holds a `..` segment or a brace alternative that is
 * absolute or starts with `~` (`{/etc,x}/*`, or `..` after a wildcard), reaches from `/`. A root left relative (no `cwd` to resolve it
 * against) is returned as is.
 */
export function globRoots(toolName: string | undefined, input: unknown, cwd?: string): string[] {
  if (typeof input !== "object" || input === null || Array.isArray(input)) return [];
  const fields = input as Record<string, unknown>;
  const names = [...GLOB_FIELDS, ...(toolName !== undefined && GLOB_TOOL.test(toolName) ? ["pattern", "patterns"] : [])];
  const patterns = names.flatMap((name) => {
    const value = fields[name];
    const list = Array.isArray(value) ? (value as unknown[]) : [value];
    return list.filter((item): item is string => typeof item === "string" && item !== "");
  });
  if (patterns.length === 0) return [];
  const given = [fields["path"], fields["dir_path"]].find((value): value is string => typeof value === "string" && value !== "");
  const base = given === undefined ? cwd : path.isAbsolute(given) ? given : cwd !== undefined ? path.resolve(cwd, given) : given;
  return patterns.map((pattern) => {
    const glob = pattern.search(GLOB_CHAR);
    if (pattern.startsWith("~") || (glob !== -1 && GLOB_ESCAPE.test(pattern.slice(glob)))) return path.sep;
    const literal = glob === -1 ? pattern : pattern.slice(0, pattern.lastIndexOf("/", glob) + 1);
    if (path.isAbsolute(literal)) return path.resolve(literal);
    if (base === undefined) return literal === "" ? "." : literal;
    return path.isAbsolute(base) ? path.resolve(base, literal) : path.join(base, literal);
  });
}

/** Every string under a field named like a path ({@link PATH_FIELD}), at any depth of `value`. */
function pathFieldStrings(value: unknown, underPathField = false, depth = 0, out: string[] = []): string[] {
  if (depth > 16) return out;
  if (typeof value === "string") {
    if (underPathField && value !== "") out.push(value);
  } else if (Array.isArray(value)) {
    for (const item of value) pathFieldStrings(item, underPathField, depth + 1, out);
  } else if (typeof value === "object" && value !== null) {
    for (const [key, item] of Object.entries(value)) {
      if (key === "fileChanges" && typeof item === "object" && item !== null) {
        // A Codex patch's changes, keyed by path ({@link pathsOf}): their values hold diffs.
        for (const change of Object.values(item)) pathFieldStrings(change, false, depth + 2, out);
      } else if (!CONTENT_FIELDS.has(key)) pathFieldStrings(item, underPathField || PATH_FIELD.test(key), depth + 1, out);
    }
  }
  return out;
}

/** Canonical JSON of `value` (object keys sorted), for comparing inputs. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, item: unknown) =>
    typeof item === "object" && item !== null && !Array.isArray(item)
      ? Object.fromEntries(Object.entries(item).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : item,
  );
}

/**
 * What a command rule must find unchanged in a later ask: the ask's input but its `command` and the
 * fields that only describe it (`description`, `justification`, `reason`, `title`), as canonical
 * JSON; undefined for a rule that reads no command (it decides on the tool or files).
 */
export function contextOf(rule: ApprovalRule, input: unknown): string | undefined {
  if (rule.command === undefined && rule.commandPrefix === undefined) return undefined;
  const rest: Record<string, unknown> =
    typeof input === "object" && input !== null && !Array.isArray(input) ? { ...(input as Record<string, unknown>) } : { input };
  delete rest["command"];
  for (const note of NOTE_FIELDS) delete rest[note];
  return canonical(rest);
}

/**
 * Whether a call's input carries environment variables of its own: a non-empty `env` (ACP
 * `terminal/create`'s `[{ name, value }]`, or an object of names), which change what a command
 * does whatever its words.
 */
function carriesVariables(input: unknown): boolean {
  if (typeof input !== "object" || input === null || Array.isArray(input)) return false;
  const env = (input as Record<string, unknown>)["env"];
  if (env === undefined || env === null) return false;
  if (Array.isArray(env)) return env.length > 0;
  return typeof env !== "object" || Object.keys(env).length > 0;
}

/** Whether `file` is `folder` or inside it (both absolute; `.` and `..` resolved). */
function inside(file: string, folder: string): boolean {
  if (!path.isAbsolute(file)) return false;
  const relative = path.relative(path.resolve(folder), path.resolve(file));
  return relative === "" || (!relative.startsWith("..") && !path.isAbsolute(relative));
}

/**
 * {@link inside}, also after resolving the symbolic links of `file`, against `realFolder` (the
 * folder's links resolved: now, or when its rule was remembered).
 */
function insideReally(file: string, folder: string, realFolder: string): boolean {
  return inside(file, folder) && path.isAbsolute(file) && inside(realDirectory(file), realFolder);
}

/**
 * Whether `rule` matches the ask `subject` (only `permission` asks match). A path rule compares the
 * ask's files, links resolved, with `realFolder` (default: the rule's folder with its links
 * resolved now): for an allow (`files` `"every"`, the default) every file must be inside it; for a
 * deny (`"any"`) one file inside it is enough, literally or once links are resolved, so an edit that
 * also touches a file elsewhere cannot carry a denied file past the deny, and so is a folder that
 * holds it (a search of an ancestor); a deny reads an ask naming no file as naming the subject's
 * `cwd` and resolves relative files against it (without a `cwd`, such asks match). A command rule compares
 * the ask's command exactly for an allow (a prefix never matches a command holding a shell
 * operator), conservatively for a deny ({@link denyMatches}: `rm -rf x; true` and `sudo rm -rf x`
 * match a deny of `rm`).
 */
export function ruleMatches(rule: ApprovalRule, subject: RuleSubject, realFolder?: string, files: "every" | "any" = "every"): boolean {
  if (subject.kind !== "permission" || (rule.toolName !== undefined && !namesTool(rule.toolName, subject.toolName, files === "any")))
    return false;
  // A rule on every tool compares commands with shell calls; a deny also with any call carrying a
  // command (an allow must not approve another tool that runs it elsewhere, such as an MCP tool's).
  if (
    rule.toolName === undefined &&
    (rule.command !== undefined || rule.commandPrefix !== undefined) &&
    !(files === "any" ? isShellCall(subject) : isShellTool(subject))
  )
    return false;
  if (files === "any" && (rule.command !== undefined || rule.commandPrefix !== undefined)) {
    if (!denyMatches(rule, subject.input)) return false;
  } else if (rule.command !== undefined || rule.commandPrefix !== undefined) {
    const matches = (command: string): boolean =>
      rule.command !== undefined
        ? command === rule.command
        : !SHELL_OPERATOR.test(command) && (command === rule.commandPrefix || command.startsWith(`${rule.commandPrefix!} `));
    if (!commandsOf(subject.input).some(matches)) return false;
  }
  if (rule.pathPrefix !== undefined) {
    const cwd = subject.cwd === undefined ? undefined : path.resolve(subject.cwd);
    // For a deny, an ask naming no file names the working directory (a search of it), and a
    // relative file is resolved against it; when it is unknown, the deny fails closed: such an ask
    // cannot be shown to stay out of the folder.
    const asked = pathsOf(subject.input);
    // A command names no file the rule could be compared with: a deny fails closed.
    if (asked.length === 0 && (files === "every" || cwd === undefined || isShellCall(subject))) return files === "any";
    const resolved = (file: string): string => (files === "any" && cwd !== undefined ? path.resolve(cwd, file) : file);
    const paths = asked.length === 0 ? [cwd!] : asked.map(resolved);
    // A glob pattern names the files it matches: its literal root counts as a file the ask names
    // (a Glob of `/repo/secret/*.pem` whose `path` is elsewhere reaches `/repo/secret`).
    const globs = globRoots(subject.toolName, subject.input, files === "any" ? cwd : undefined);
    const named = [...paths, ...pathFieldStrings(subject.input).map(resolved), ...globs];
    const folder = realFolder ?? realDirectory(rule.pathPrefix);
    if (files === "any") {
      const touches = (file: string): boolean =>
        path.isAbsolute(file) && (inside(file, rule.pathPrefix!) || inside(realDirectory(file), folder));
      // A file the ask names by a relative path, or a folder holding the denied one (a search of
      // an ancestor, such as Grep's `path`, Gemini CLI's `dir_path`, a glob's root), reaches into it.
      const reaches = (file: string): boolean =>
        !path.isAbsolute(file) || inside(rule.pathPrefix!, file) || inside(folder, realDirectory(file));
      if (!named.some(touches) && !named.some(reaches)) return false;
    } else if (!named.every((file) => insideReally(file, rule.pathPrefix!, folder))) return false;
  }
  return true;
}

/**
 * Whether the ask's tool name `asked` may be a longer one the SDK cut to its first
 * {@link TOOL_NAME_MAX_LENGTH} characters (one fewer at a surrogate pair): other tools' names may
 * share those characters, so an allow never matches it by name.
 */
export function mayBeCutToolName(asked: string | undefined): boolean {
  return asked !== undefined && asked.length >= TOOL_NAME_MAX_LENGTH - 1;
}

/**
 * Whether an ask about `asked` is about the tool `toolName`: the same name (for an allow, not one
 * that may have been cut: {@link mayBeCutToolName}), or, for a deny (`conservatively`), a name that
 * is a title starting `<toolName>: ` (an ACP agent that sends no tool name, such as Nanocoder's
 * `execute_bash: rm -f x`) or the start of a longer `toolName` the ask's name may be cut from.
 */
function namesTool(toolName: string, asked: string | undefined, conservatively: boolean): boolean {
  if (asked === undefined) return false;
  if (!conservatively) return asked === toolName && !mayBeCutToolName(asked);
  return asked === toolName || asked.startsWith(`${toolName}: `) || (mayBeCutToolName(asked) && toolName.startsWith(asked));
}

/**
 * Whether `subject` is a shell call: its input carries a command ({@link commandOf}) or one in a
 * shape no rule reads ({@link unreadableCommand}), its ACP kind is `execute`, or its tool is one of
 * {@link SHELL_TOOLS}.
 */
export function isShellCall(subject: RuleSubject): boolean {
  return (
    commandOf(subject.input) !== undefined ||
    unreadableCommand(subject.input) ||
    subject.toolKind === "execute" ||
    (subject.toolName !== undefined && SHELL_TOOLS.includes(subject.toolName))
  );
}

/** Whether `subject` is a shell tool's call: its ACP kind is `execute`, or its tool is one of {@link SHELL_TOOLS}. */
function isShellTool(subject: RuleSubject): boolean {
  return subject.toolKind === "execute" || (subject.toolName !== undefined && SHELL_TOOLS.includes(subject.toolName));
}

/**
 * Why `rule` matches `subject` without having been compared with it, or undefined: the call
 * carries no command, or one in a shape no rule reads (a command rule), or is a shell call naming
 * no file (a path rule), so a deny fails closed. For the deny's reason.
 */
export function uncomparedBy(rule: ApprovalRule, subject: RuleSubject): string | undefined {
  if ((rule.command !== undefined || rule.commandPrefix !== undefined) && innermost(subject.input) === undefined)
    return unreadableCommand(subject.input)
      ? "the call's command is not text or an array of strings (its args), so the rule could not read it"
      : "the call carries no command the rule could be compared with";
  if (rule.pathPrefix !== undefined && pathsOf(subject.input).length === 0 && isShellCall(subject))
    return "the call runs a command, which names no file the rule could be compared with";
  return undefined;
}

/**
 * The rules a host could remember for the ask `subject`: for a shell command, its exact command;
 * for files, the folder of the first one (when every file is inside it and absolute); else the
 * tool alone; for an ask whose tool name may have been cut ({@link mayBeCutToolName}), only a
 * shell tool's command, without `toolName`. Empty for a `question`, a `plan_review`, an ask about
 * no tool, another ask whose tool name may have been cut, and a shell call
 * whose command the ask does not carry (an ACP `execute` call: the tool alone would allow every
 * command).
 */
export function suggestRules(subject: RuleSubject): ApprovalRule[] {
  const toolName = subject.toolName;
  if (subject.kind !== "permission" || toolName === undefined || toolName === "") return [];
  const command = commandOf(subject.input);
  // A rule on a name that may have been cut would name every tool sharing its first characters: a
  // shell call's command is suggested on every shell tool instead.
  if (mayBeCutToolName(toolName)) return command !== undefined && isShellTool(subject) ? [{ command }] : [];
  if (command !== undefined) return [{ toolName, command }];
  if (isShellCall(subject)) return [];
  const paths = pathsOf(subject.input);
  if (paths.length > 0) {
    const folder = path.isAbsolute(paths[0]!) ? path.dirname(path.resolve(paths[0]!)) : undefined;
    // A glob pattern reaching out of the folder (a Glob of `/etc/*` from it) would not match the rule.
    const named = [...paths, ...globRoots(toolName, subject.input)];
    if (folder !== undefined && named.every((file) => inside(file, folder))) return [{ toolName, pathPrefix: folder }];
  }
  return [{ toolName }];
}

/** The keys a rule to remember may have. */
const RULE_KEYS: readonly string[] = ["toolName", "command", "commandPrefix", "pathPrefix", "scope"];

/**
 * Checks the shape of a rule (`value`, found at `field`): a plain object with a non-empty
 * `toolName`, string `command`/`commandPrefix` (not both, a prefix not starting with a variable
 * assignment) and an absolute `pathPrefix`; none holding a NUL character. A rule that could never
 * match is refused too: a `commandPrefix` holding a shell operator, substitution, expansion or
 * quote (`;`, `&`, `|`, `$`, a quote...: the commands holding one never match a prefix), and a
 * `pathPrefix` on a shell tool ({@link SHELL_TOOLS}: its asks name no file).
 * @returns the field at fault (`field` or `field.<name>`) and why, or undefined.
 */
export function ruleShapeError(value: unknown, field: string): { readonly field: string; readonly reason: string } | undefined {
  const refuse = (at: string, reason: string) => ({ field: at, reason });
  if (typeof value !== "object" || value === null || Array.isArray(value))
    return refuse(field, "must be a rule object (one of request.suggestions, or { toolName, command | commandPrefix | pathPrefix })");
  const rule = value as Record<string, unknown>;
  if (rule["toolName"] === undefined && rule["command"] === undefined && rule["commandPrefix"] === undefined)
    return refuse(
      `${field}.toolName`,
      rule["pathPrefix"] === undefined
        ? "must be a non-empty string (it may be left out only with a command or commandPrefix)"
        : "must be a non-empty string with pathPrefix (a path rule on every tool would read every call naming no file, such as a to-do list or a web fetch, as one in the working directory); it may be left out only with a command or commandPrefix",
    );
  if (rule["toolName"] !== undefined && (typeof rule["toolName"] !== "string" || rule["toolName"] === ""))
    return refuse(`${field}.toolName`, "must be a non-empty string");
  for (const name of ["command", "commandPrefix", "pathPrefix"]) {
    const part = rule[name];
    if (part !== undefined && (typeof part !== "string" || part === "")) return refuse(`${field}.${name}`, "must be a non-empty string");
  }
  if (rule["command"] !== undefined && rule["commandPrefix"] !== undefined)
    return refuse(`${field}.commandPrefix`, "cannot be given with command (one of them)");
  for (const name of ["toolName", "command", "commandPrefix", "pathPrefix"])
    if (typeof rule[name] === "string" && (rule[name] as string).includes("\0"))
      return refuse(`${field}.${name}`, "cannot hold a NUL character (no tool name, command or path the rule is compared with can)");
  if (typeof rule["commandPrefix"] === "string" && /^[A-Za-z_][A-Za-z0-9_]*=/.test(rule["commandPrefix"].trimStart()))
    return refuse(`${field}.commandPrefix`, "cannot start with a variable assignment (it would allow any command after it)");
  const operator = typeof rule["commandPrefix"] === "string" ? SHELL_OPERATOR.exec(rule["commandPrefix"]) : null;
  if (operator)
    return refuse(
      `${field}.commandPrefix`,
      `cannot hold a shell operator, substitution, expansion or quote (${JSON.stringify(operator[0])}): a command holding one never matches a prefix, so the rule would never apply; give the whole command as command instead`,
    );
  if (typeof rule["pathPrefix"] === "string" && !path.isAbsolute(rule["pathPrefix"]))
    return refuse(`${field}.pathPrefix`, "must be an absolute path");
  if (rule["pathPrefix"] !== undefined && typeof rule["toolName"] === "string" && SHELL_TOOLS.includes(rule["toolName"]))
    return refuse(`${field}.pathPrefix`, shellPathReason(rule["toolName"]));
  return undefined;
}

/**
 * The shell tools of the drivers, as their asks name them, whose input names no file
 * ({@link pathsOf} finds none), so a `pathPrefix` rule on one never matches: Claude Code's `Bash`
 * (`command`, `description`, `timeout`; also the Claude Code ACP adapter's), Codex's `shell`
 * (`command`, `cwd`, either transport) and the `terminal/create` the SDK asks about for an ACP
 * agent's host terminal (`command`, `args`, `cwd`, `env`). An ACP agent's own shell tool is named
 * by the agent (its ask's `details.toolKind` is `execute`); a rule to remember answering one that
 * names no file is refused as not matching it.
 */
export const SHELL_TOOLS: readonly string[] = Object.freeze(["Bash", "shell", "terminal/create"]);

/** Why a `pathPrefix` rule on the shell tool `toolName` (or a shell ask's) is refused. */
function shellPathReason(toolName: string): string {
  return (
    `can never match: an ask about ${toolName} names no file (a shell tool's names a command), so the rule would never deny (or allow) ` +
    `a command that reads or writes under the folder (cat secret/key runs all the same); ` +
    `use a command or commandPrefix rule for the commands, or a sandbox that confines them`
  );
}

/**
 * Checks a rule to remember with an answer to `subject`: only the rule's keys (another key is
 * refused, with the closest name), the shape of {@link ruleShapeError}, a `scope` of `run`, and
 * matching the ask it answers as the run will match it: an allow's (`outcome` `"approve"`, the
 * default) exactly, a deny's conservatively ({@link ruleMatches} with `"any"`).
 * @returns the `InvalidOptionError` (subject `subject`, field `remember` or `remember.<field>`), or undefined.
 */
export function rememberError(
  remember: unknown,
  ask: RuleSubject & { readonly id: string },
  subject: string,
  outcome: "approve" | "deny" = "approve",
): InvalidOptionError | undefined {
  const refuse = (field: string, reason: string): InvalidOptionError => new InvalidOptionError({ subject, field, reason });
  if (typeof remember === "object" && remember !== null && !Array.isArray(remember)) {
    const rule = remember as Record<string, unknown>;
    // An unknown key is refused, not dropped: a misspelt `commandPrefx` would otherwise leave a
    // rule on the tool alone, which allows every call of it.
    for (const key of Object.keys(rule))
      if (!RULE_KEYS.includes(key)) {
        const suggestion = closestOption(key, RULE_KEYS);
        return new InvalidOptionError({
          subject,
          field: `remember.${key}`,
          reason: `is not a rule field (${RULE_KEYS.join(", ")})${suggestion ? `; did you mean ${suggestion}?` : ""}`,
          suggestion,
        });
      }
    const scope = rule["scope"];
    if (scope !== undefined && scope !== "run") return refuse("remember.scope", `must be "run", got ${JSON.stringify(scope)}`);
  }
  const shape = ruleShapeError(remember, "remember");
  if (shape) return refuse(shape.field, shape.reason);
  if (ask.kind !== "permission") return refuse("remember", `cannot be remembered for a ${ask.kind} (only permission asks)`);
  if (outcome === "approve" && (remember as ApprovalRule).toolName !== undefined && mayBeCutToolName(ask.toolName))
    return refuse(
      "remember.toolName",
      `cannot name this tool in an allow: its name is ${TOOL_NAME_MAX_LENGTH} characters or more (a longer name is cut to its first ${TOOL_NAME_MAX_LENGTH}), which other tools' names may share`,
    );
  // A path rule answering an ask that names no file but a command (an ACP agent's shell tool) can
  // never match it by its files.
  const pathless = pathsOf(ask.input).length === 0;
  if ((remember as ApprovalRule).pathPrefix !== undefined && pathless && commandOf(ask.input) !== undefined)
    return refuse("remember.pathPrefix", shellPathReason(ask.toolName ?? "this tool"));
  if (!ruleMatches(remember as ApprovalRule, ask, undefined, outcome === "deny" ? "any" : "every")) {
    if (outcome === "approve" && (remember as ApprovalRule).pathPrefix !== undefined && pathless)
      return refuse("remember.pathPrefix", shellPathReason(ask.toolName ?? "this tool"));
    return refuse("remember", `does not match approval ${ask.id} (${ask.toolName ?? ask.kind}); a rule must match the request it answers`);
  }
  return undefined;
}

/** The rule part of `remember` (its scope left out), copied. */
export function ruleOf(remember: RememberRule): ApprovalRule {
  return {
    ...(remember.toolName !== undefined ? { toolName: remember.toolName } : {}),
    ...(remember.command !== undefined ? { command: remember.command } : {}),
    ...(remember.commandPrefix !== undefined ? { commandPrefix: remember.commandPrefix } : {}),
    ...(remember.pathPrefix !== undefined ? { pathPrefix: remember.pathPrefix } : {}),
  };
}

/** A rule in one line for people, e.g. `Bash command "npm test"`. */
export function describeRule(rule: ApprovalRule): string {
  const tool = rule.toolName ?? "any tool's";
  if (rule.command !== undefined) return `${tool} command ${JSON.stringify(rule.command)}`;
  if (rule.commandPrefix !== undefined) return `${tool} commands starting ${JSON.stringify(rule.commandPrefix)}`;
  if (rule.pathPrefix !== undefined) return `${rule.toolName ?? "any tool"} in ${rule.pathPrefix}`;
  return `every ${tool} call`;
}

/**
 * The rules a run remembers, in the order given. A deny rule wins over an allow rule that matches
 * the same ask (a host's "never" beats its "always").
 */
export class ApprovalRules {
  readonly #rules: RememberedRule[] = [];
  #denies = false;

  /** Remembers `rule`. */
  add(rule: RememberedRule): void {
    this.#rules.push(rule);
    if (rule.decision.outcome === "deny") this.#denies = true;
  }

  /** Whether a deny rule is remembered. */
  get denies(): boolean {
    return this.#denies;
  }

  /** The remembered rule that answers `subject`, or undefined. */
  match(subject: RuleSubject): RememberedRule | undefined {
    const matching = this.#rules.filter(
      (remembered) =>
        ruleMatches(remembered.rule, subject, remembered.realFolder, remembered.decision.outcome === "deny" ? "any" : "every") &&
        // A deny holds in any working directory and environment; an allow only in the answered ask's,
        // and one that kept no answered ask's input (an up-front rule, a tool or path rule) never
        // approves a call carrying variables of its own (`BASH_ENV`, `LD_PRELOAD`): it is asked.
        (remembered.decision.outcome === "deny" ||
          (remembered.context === undefined
            ? !carriesVariables(subject.input)
            : contextOf(remembered.rule, subject.input) === remembered.context)),
    );
    return matching.find((remembered) => remembered.decision.outcome === "deny") ?? matching[0];
  }

  /** The rules remembered so far, oldest first. */
  list(): readonly RememberedRule[] {
    return [...this.#rules];
  }
}
