// First turn on a pre-warmed process (agent.prewarm() awaited beforehand) vs a cold first turn (the
// run spawns its CLI), on the real claude and codex binaries against the scripted model servers; and
// a cold first turn in a fresh process against a bare client of the same binary
// (`FIRST_TURN=bare pnpm bench first` measures only that).
import { claude, defaultClaudeCommand } from "@adaptor/claude";
import { codex, defaultCodexCommand, type CodexDriver } from "@adaptor/codex";
import { claudeTestEnv, codexTestEnv, startAnthropicServer, startOpenAIServer } from "@adaptor/testkit";
import { Agent, type Driver } from "adaptor";
import { fmt, type Benchmark, type Figure } from "./harness.js";
import { coldVsBare } from "./first-turn/cold-vs-bare.js";
import { median, range } from "./pipeline/stats.js";

const ROUNDS = 5;
/** Rounds of the cold-vs-bare comparison: FIRST_TURN_ROUNDS, else {@link ROUNDS} (the wall time of a loaded machine needs more). */
const BARE_ROUNDS = Number(process.env.FIRST_TURN_ROUNDS) > 0 ? Number(process.env.FIRST_TURN_ROUNDS) : ROUNDS;
/** Every timed turn sends the same prompt. */
const PROMPT = "a first turn";

/** One timed first turn: ms from `stream()` to its end, and whether it took a pre-warmed process. */
async function time(agent: Agent): Promise<{ ms: number; prewarmed: boolean }> {
  const started = performance.now();
  let prewarmed = false;
  for await (const event of agent.stream(PROMPT)) {
    if (event.type === "notice" && event.message === "process reused" && event.data?.prewarmed === true) prewarmed = true;
  }
  return { ms: performance.now() - started, prewarmed };
}

/** How a timed first turn gets its process; each `prepare()` is untimed, then the turn is timed. */
interface Form {
  readonly label: string;
  /** Whether the turn must have taken a pre-warmed process. */
  readonly prewarmed: boolean;
  /** Brings the form's agent to where its next first turn starts (untimed) and returns it. */
  prepare(): Promise<Agent>;
  /** Called after the timed turn (untimed). */
  after?(): Promise<void>;
  close(): Promise<void>;
}

/** A new Agent per round, pre-warmed once: its first turn takes a process that never served a turn. */
function freshForm(driver: () => Driver): Form {
  let agent: Agent | undefined;
  return {
    label: "first turn on a pre-warmed process",
    prewarmed: true,
    async prepare() {
      agent = new Agent(driver());
      if ((await agent.prewarm()) !== 1) throw new Error("prewarm started no process");
      return agent;
    },
    async after() {
      await agent?.close();
      agent = undefined;
    },
    async close() {
      await agent?.close();
    },
  };
}

/**
 * One Agent pre-warmed once: from the second round on its first turn takes the process the previous
 * turn handed back (codex: a healthy run that left nothing running puts its process back among the
 * pre-warmed ones with a new thread, in the background). after() waits until it is back (at most
 * 5 s), so that work never overlaps another form's timed turn; when it did not come back (the turn
 * left a process running), prepare() pre-warms a new one and counts a miss.
 */
function handedBackForm(driver: () => CodexDriver): Form & { misses: number } {
  const d = driver();
  const agent = new Agent(d);
  let started = false;
  const form = {
    label: "first turn on a handed-back pre-warmed process",
    prewarmed: true,
    misses: 0,
    async prepare() {
      if (d.prewarmedProcesses < 1) {
        if (started) form.misses += 1;
        if ((await agent.prewarm()) !== 1) throw new Error("prewarm started no process");
      }
      started = true;
      return agent;
    },
    async after() {
      const end = Date.now() + 5_000;
      while (d.prewarmedProcesses < 1 && Date.now() < end) await new Promise((r) => setTimeout(r, 5));
    },
    close: () => agent.close(),
  };
  return form;
}

/** An Agent that never pre-warms: every first turn spawns. */
function coldForm(driver: () => Driver): Form {
  const agent = new Agent(driver());
  return { label: "cold first turn (spawn)", prewarmed: false, prepare: async () => agent, close: () => agent.close() };
}

/**
 * Rounds of one timed first turn per form, the forms' order rotating from round to round (so none
 * always runs right after another's process exits); round 0 is a warm-up and not counted.
 * Figures: medians of {@link ROUNDS} rounds, min–max; the ratios are of the medians, against cold.
 */
async function measure(name: string, forms: Form[]): Promise<Figure[]> {
  const samples = forms.map(() => [] as number[]);
  try {
    for (let round = 0; round <= ROUNDS; round++) {
      for (let k = 0; k < forms.length; k++) {
        const i = (round + k) % forms.length;
        const form = forms[i]!;
        const agent = await form.prepare();
        const turn = await time(agent);
        await form.after?.();
        if (turn.prewarmed !== form.prewarmed)
          throw new Error(`${name}: "${form.label}" ${form.prewarmed ? "did not take" : "took"} a pre-warmed process`);
        if (round > 0) samples[i]!.push(turn.ms);
      }
    }
  } finally {
    for (const form of forms) await form.close();
  }
  const ms = (v: number) => fmt(v, 0);
  const cold = forms.findIndex((form) => !form.prewarmed);
  const c = median(samples[cold]!);
  const figures: Figure[] = [];
  forms.forEach((form, i) => {
    const note = i === cold ? `baseline; min–max ${range(samples[i]!, ms)} ms` : `min–max ${range(samples[i]!, ms)} ms`;
    figures.push({ label: `${name}: ${form.label}`, value: median(samples[i]!), unit: "ms", note });
  });
  forms.forEach((form, i) => {
    if (i !== cold)
      figures.push({
        label: `${name}: ${form.label.replace("first turn on a ", "")} / cold`,
        value: median(samples[i]!) / c,
        unit: "x",
        note: "goal ≤ 0.3x",
      });
  });
  return figures;
}

async function claudeFirstTurn(): Promise<Figure[]> {
  const server = await startAnthropicServer();
  const env = await claudeTestEnv({ server });
  const driver = () => claude({ cwd: env.workDir, env: env.env, inheritEnv: false, model: "claude-sonnet-4-5" });
  try {
    const bare = await coldVsBare(
      "claude",
      { command: defaultClaudeCommand(), cwd: env.workDir, env: env.env, model: "claude-sonnet-4-5", prompt: PROMPT },
      BARE_ROUNDS,
      () => server.requests.filter((r) => r.path === "/v1/messages").map((r) => r.time),
    );
    if (process.env.FIRST_TURN === "bare") return bare;
    return [...(await measure("claude", [freshForm(driver), coldForm(driver)])), ...bare];
  } finally {
    await server.close();
    await env.cleanup();
  }
}

async function codexFirstTurn(): Promise<Figure[]> {
  const server = await startOpenAIServer({ rules: [] });
  const env = await codexTestEnv({ server });
  const driver = () => codex({ cwd: env.workDir, env: env.env, inheritEnv: false, model: env.model });
  try {
    const bare = await coldVsBare(
      "codex",
      { command: defaultCodexCommand(), cwd: env.workDir, env: env.env, model: env.model, prompt: PROMPT },
      BARE_ROUNDS,
      () => server.requests.map((r) => r.time),
    );
    if (process.env.FIRST_TURN === "bare") return bare;
    const handedBack = handedBackForm(driver);
    const figures = await measure("codex", [freshForm(driver), handedBack, coldForm(driver)]);
    return [...figures, ...bare].map((f) =>
      f.label.endsWith(handedBack.label) ? { ...f, note: `${f.note}; not handed back ${handedBack.misses} of ${ROUNDS}` } : f,
    );
  } finally {
    await server.close();
    await env.cleanup();
  }
}

/** `FIRST_TURN_CLI=claude` or `codex`: measure that CLI only (else both). */
const ONLY = process.env.FIRST_TURN_CLI;

/** `pnpm bench`: P2, a first turn on a pre-warmed process vs a cold one, real binaries. */
export const firstTurn: Benchmark = {
  name: `first turn: pre-warmed (agent.prewarm()) vs cold spawn, real binaries + scripted model (medians of ${ROUNDS})`,
  run: async () => [...(ONLY === "codex" ? [] : await claudeFirstTurn()), ...(ONLY === "claude" ? [] : await codexFirstTurn())],
};
