// Event pipeline (one long streamed turn): the SDK's consumer CPU and extra peak memory against a
// bare line reader, each a separate process measuring itself, interleaved in the same run.
import { join } from "node:path";
import { fmt, type Benchmark, type Figure } from "./harness.js";
import { FIXTURES, bundleProgram, runConsumer, type ConsumerReport } from "./pipeline/consumer-process.js";
import { median, range } from "./pipeline/stats.js";

/** Deltas in the long turn. */
const DELTAS = 200_000;
/** Measured rounds (after one warm-up round); the figures are medians over these. */
const ROUNDS = 5;

interface Cli {
  /** Heading of its figures. */
  readonly name: string;
  /** The agent consumer's argument. */
  readonly driver: "claude" | "codex" | "codex-exec";
  readonly fake: string;
  /** Extra environment for the fake (both consumers pass it on). */
  readonly fakeEnv?: Record<string, string>;
  /** The bare consumer and the env variable it reads the fake's path from. */
  readonly bare: { readonly script: string; readonly label: string; readonly envVar: string };
}

const CLIS: Cli[] = [
  {
    name: "claude",
    driver: "claude",
    fake: join(FIXTURES, "fake-claude-stream.mjs"),
    bare: { script: join(FIXTURES, "raw-claude-consumer.mjs"), label: "readline + JSON.parse", envVar: "FAKE_CLAUDE" },
  },
  {
    name: "claude (keys reordered)",
    driver: "claude",
    fake: join(FIXTURES, "fake-claude-stream.mjs"),
    fakeEnv: { FAKE_ORDER: "reordered" },
    bare: { script: join(FIXTURES, "raw-claude-consumer.mjs"), label: "readline + JSON.parse", envVar: "FAKE_CLAUDE" },
  },
  {
    name: "codex",
    driver: "codex",
    fake: join(FIXTURES, "fake-codex-app-server.mjs"),
    bare: { script: join(FIXTURES, "raw-codex-consumer.mjs"), label: "JSON-RPC line reader", envVar: "FAKE_CODEX" },
  },
  {
    name: "codex (keys reordered)",
    driver: "codex",
    fake: join(FIXTURES, "fake-codex-app-server.mjs"),
    fakeEnv: { FAKE_ORDER: "reordered" },
    bare: { script: join(FIXTURES, "raw-codex-consumer.mjs"), label: "JSON-RPC line reader", envVar: "FAKE_CODEX" },
  },
  {
    name: "codex exec",
    driver: "codex-exec",
    fake: join(FIXTURES, "fake-codex-exec.mjs"),
    bare: { script: join(FIXTURES, "raw-codex-exec-consumer.mjs"), label: "readline + JSON.parse", envVar: "FAKE_CODEX_EXEC" },
  },
];

/** Per-round consumer cost: the run at {@link DELTAS} minus the run at 1 delta (start-up and fixed costs cancel). */
interface Cost {
  readonly cpuS: number;
  readonly rssMiB: number;
}

function cost(big: ConsumerReport, one: ConsumerReport): Cost {
  return { cpuS: (big.cpuUs - one.cpuUs) / 1e6, rssMiB: (big.maxRssKb - one.maxRssKb) / 1024 };
}

/** The same, up to after the Result's transcript was read. */
function costWithTranscript(big: ConsumerReport, one: ConsumerReport): Cost {
  return {
    cpuS: ((big.withTranscriptCpuUs ?? big.cpuUs) - (one.withTranscriptCpuUs ?? one.cpuUs)) / 1e6,
    rssMiB: ((big.withTranscriptMaxRssKb ?? big.maxRssKb) - (one.withTranscriptMaxRssKb ?? one.maxRssKb)) / 1024,
  };
}

/**
 * One CLI: per round, the bare consumer and the SDK consumer, each at {@link DELTAS} and at 1 delta.
 * Consumer CPU = cpu(N) - cpu(1) of the consumer process itself; extra peak RSS = maxRSS(N) - maxRSS(1).
 */
async function measureCli(
  cli: Cli,
  agentScript: string,
): Promise<{ bare: Cost[]; sdk: Cost[]; sdkWithTranscript: Cost[]; sdkReport: ConsumerReport; bareReport: ConsumerReport }> {
  const bareAt = (n: number) => runConsumer(cli.bare.script, [], { ...cli.fakeEnv, [cli.bare.envVar]: cli.fake, FAKE_N: String(n) });
  const sdkAt = (n: number) => runConsumer(agentScript, [cli.driver], { ...cli.fakeEnv, FAKE_CLI: cli.fake, FAKE_N: String(n) });
  const bare: Cost[] = [];
  const sdk: Cost[] = [];
  const sdkWithTranscript: Cost[] = [];
  let sdkReport: ConsumerReport | undefined;
  let bareReport: ConsumerReport | undefined;
  for (let round = 0; round <= ROUNDS; round++) {
    const b = await bareAt(DELTAS);
    const b1 = await bareAt(1);
    const s = await sdkAt(DELTAS);
    const s1 = await sdkAt(1);
    if (round === 0) continue; // warm-up: disk caches, first compilation
    bare.push(cost(b, b1));
    sdk.push(cost(s, s1));
    sdkWithTranscript.push(costWithTranscript(s, s1));
    sdkReport = s;
    bareReport = b;
  }
  return { bare, sdk, sdkWithTranscript, sdkReport: sdkReport!, bareReport: bareReport! };
}

function figures(cli: Cli, m: Awaited<ReturnType<typeof measureCli>>, goal: number): Figure[] {
  const s = (v: number) => fmt(v, 2);
  const mib = (v: number) => fmt(v, 0);
  const bareCpu = median(m.bare.map((c) => c.cpuS));
  const sdkCpu = median(m.sdk.map((c) => c.cpuS));
  const bareRss = median(m.bare.map((c) => c.rssMiB));
  const sdkRss = median(m.sdk.map((c) => c.rssMiB));
  const withCpu = median(m.sdkWithTranscript.map((c) => c.cpuS));
  const withRss = median(m.sdkWithTranscript.map((c) => c.rssMiB));
  const delivered = `${fmt(m.sdkReport.events)} events, ${fmt(m.sdkReport.dropped ?? 0)} dropped, ${fmt(m.sdkReport.transcript ?? 0)} transcript items`;
  return [
    {
      label: `${cli.name}: bare ${cli.bare.label}, consumer CPU`,
      value: bareCpu * 1000,
      unit: "ms",
      note: `baseline; min–max ${range(
        m.bare.map((c) => c.cpuS * 1000),
        mib,
      )} ms`,
    },
    {
      label: `${cli.name}: Agent + ${cli.driver === "codex-exec" ? 'codex({ transport: "exec" })' : `${cli.driver}()`}, consumer CPU`,
      value: sdkCpu * 1000,
      unit: "ms",
      note: `${s(sdkCpu / bareCpu)}x the bare reader (goal ≤ ${goal}x); min–max ${range(
        m.sdk.map((c) => c.cpuS * 1000),
        mib,
      )} ms; ${delivered}`,
    },
    {
      label: `${cli.name}: bare, extra peak RSS`,
      value: bareRss,
      unit: "MiB",
      note: `baseline; min–max ${range(
        m.bare.map((c) => c.rssMiB),
        mib,
      )} MiB`,
    },
    {
      label: `${cli.name}: Agent, extra peak RSS`,
      value: sdkRss,
      unit: "MiB",
      note: `${s(sdkRss / bareRss)}x the bare reader (goal ≤ 1.5x); min–max ${range(
        m.sdk.map((c) => c.rssMiB),
        mib,
      )} MiB`,
    },
    {
      label: `${cli.name}: Agent, then result.transcript() read`,
      value: withCpu * 1000,
      unit: "ms",
      note: `${s(withCpu / bareCpu)}x the bare reader's CPU; extra peak RSS ${mib(withRss)} MiB, ${s(withRss / bareRss)}x`,
    },
  ];
}

/** `pnpm bench`: consumer CPU and extra peak RSS of one 200,000-delta turn, SDK vs bare reader, Claude and Codex. */
export const eventPipeline: Benchmark = {
  name: `event pipeline: one ${fmt(DELTAS)}-delta turn from a fake CLI, SDK vs bare reader (medians of ${ROUNDS}, consumer process only, N minus 1 delta)`,
  async run(): Promise<Figure[]> {
    const bundle = await bundleProgram("pipeline/agent-consumer.ts");
    try {
      const out: Figure[] = [];
      // `PIPELINE=exec,reordered pnpm bench pipeline` measures only the transports whose name holds one of the words.
      const words = (process.env.PIPELINE ?? "").split(",").filter((word) => word !== "");
      const clis = words.length ? CLIS.filter((cli) => words.some((word) => cli.name.includes(word))) : CLIS;
      for (const cli of clis) out.push(...figures(cli, await measureCli(cli, bundle.script), 1.0));
      return out;
    } finally {
      bundle.cleanup();
    }
  },
};
