import type { Driver, DriverDescriptor, DriverRequest, DriverResponse, DriverSink } from "@adaptor/driver";
import type { CliProcess } from "@adaptor/driver/process";
import { runAppServer } from "./app-server/app-server-run.js";
import { defaultCodexCommand } from "./command.js";
import { validateCodexConfig, type CodexConfig } from "./config.js";
import { CODEX_DESCRIPTOR, CODEX_EXEC_DESCRIPTOR } from "./descriptor.js";
import { runExec } from "./exec/exec-run.js";
import { toStrictOutputSchema } from "./output-schema/strict-output-schema.js";
import { planPolicy } from "./policy.js";

/**
 * Drives the real `codex` binary (pinned `@openai/codex` 0.171.0). Transport `"app-server"`
 * (default): `codex app-server` JSON-RPC with streaming, real approvals, resume and fork
 * (notes/cli-protocols.md §3). Transport `"exec"`: the batch `codex exec --json`. Each run uses a
 * fresh process; the thread id from codex's reply is the resume id.
 */
export class CodexDriver implements Driver {
  /** {@link CODEX_DESCRIPTOR}, or {@link CODEX_EXEC_DESCRIPTOR} for `transport: "exec"`. */
  readonly descriptor: DriverDescriptor;
  /** The captured configuration (a frozen copy of what was passed). */
  readonly config: CodexConfig;
  readonly #live = new Set<CliProcess>();

  constructor(config: CodexConfig = {}) {
    const copy: CodexConfig = {
      ...config,
      ...(config.extraArgs ? { extraArgs: [...config.extraArgs] } : {}),
      ...(config.env ? { env: { ...config.env } } : {}),
      ...(config.configOverrides ? { configOverrides: { ...config.configOverrides } } : {}),
    };
    this.config = Object.freeze(copy);
    this.descriptor = config.transport === "exec" ? CODEX_EXEC_DESCRIPTOR : CODEX_DESCRIPTOR;
  }

  /** @throws InvalidDriverConfigError (see {@link validateCodexConfig}). */
  validateConfig(): void {
    validateCodexConfig(this.config);
  }

  /**
   * Runs one turn in a fresh process; see {@link Driver.run} for the verdict contract. Before
   * anything is launched it refuses what the descriptor lacks (policy, approval modes) and output
   * schemas strict mode cannot express.
   *
   * @throws InvalidDriverConfigError, InvalidPolicyError, PolicyCapabilityUnsupportedError,
   * HumanDecisionModeUnsupportedError, InvalidOutputSchemaError before launch; DriverError
   * `NOT_FOUND` when the executable is missing; `signal.reason` (or a `FORCE_KILLED` DriverError
   * carrying it) after a cancel, once the process is gone.
   */
  async run(request: DriverRequest, sink: DriverSink, signal: AbortSignal): Promise<DriverResponse> {
    signal.throwIfAborted();
    this.validateConfig();
    const plan = planPolicy(request.policy, this.descriptor);
    const outputSchema = request.outputSchema ? toStrictOutputSchema(request.outputSchema) : undefined;
    const init = {
      command: this.config.command ?? defaultCodexCommand(),
      config: this.config,
      request,
      sink,
      signal,
      plan,
      outputSchema,
      track: (proc: CliProcess) => {
        this.#live.add(proc);
        return () => void this.#live.delete(proc);
      },
    };
    return this.config.transport === "exec" ? runExec(init) : runAppServer(init);
  }

  /**
   * What decides whether a stored codex thread can be continued by this driver (part of a thread's
   * fingerprint): the driver type, transport, model and `CODEX_HOME` (where the rollouts live).
   */
  fingerprint(): unknown {
    return {
      type: "codex",
      transport: this.config.transport ?? "app-server",
      model: this.config.model ?? null,
      codexHome: this.config.codexHome ?? this.config.env?.["CODEX_HOME"] ?? null,
    };
  }

  /** Terminates every live process of this driver. Idempotent. */
  async close(): Promise<void> {
    await Promise.all([...this.#live].map((proc) => proc.close()));
  }
}
