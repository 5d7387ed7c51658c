import { findError } from "@adaptor/errors";
import { InvalidDriverConfigError, type Driver, type DriverRequest, type DriverResponse } from "@adaptor/driver";
import { checkPolicy } from "../policy/check-policy.js";
import { prepareMcpServers } from "../mcp/prepare-mcp-servers.js";
import { prepareSkills } from "../skills/prepare-skills.js";
import { prepareStructuredOutput } from "../structured-output/prepare-structured-output.js";
import { prepareHostTools } from "../tools/prepare-host-tools.js";
import type { RunOptions } from "./run-options.js";

/** A hook run on the driver's response before the verdict (e.g. structured output validation). */
export type ResponseHook = (response: DriverResponse) => DriverResponse | Promise<DriverResponse>;

/**
 * The pre-invocation stage of one run (docs/design.md, "One run" step 2): each step validates one
 * concern, may add to the driver request, and may register cleanups and response hooks. A step
 * that throws rejects the run before the driver starts; cleanups registered so far still run.
 */
export class Preparation {
  readonly runId: string;
  readonly driver: Driver;
  readonly options: RunOptions;
  readonly signal: AbortSignal;
  /** The request being built; steps add their fields. */
  request: DriverRequest;
  readonly #cleanups: (() => Promise<void> | void)[] = [];
  readonly #hooks: ResponseHook[] = [];

  constructor(init: { runId: string; driver: Driver; options: RunOptions; signal: AbortSignal; prompt: string }) {
    this.runId = init.runId;
    this.driver = init.driver;
    this.options = init.options;
    this.signal = init.signal;
    const { model, cwd, env, metadata } = init.options;
    this.request = {
      runId: init.runId,
      prompt: init.prompt,
      ...(model ? { model } : {}),
      ...(cwd ? { cwd } : {}),
      ...(env ? { env } : {}),
      ...(metadata ? { metadata } : {}),
    };
  }

  /** Registers work to undo after the run (staged files, temp dirs); run in reverse order. */
  onCleanup(cleanup: () => Promise<void> | void): void {
    this.#cleanups.push(cleanup);
  }

  /** Registers a response hook; hooks run in registration order. */
  onResponse(hook: ResponseHook): void {
    this.#hooks.push(hook);
  }

  /** Applies the response hooks. */
  async finish(response: DriverResponse): Promise<DriverResponse> {
    let current = response;
    for (const hook of this.#hooks) current = await hook(current);
    return current;
  }

  /** Runs cleanups (reverse order); never throws. */
  async cleanup(): Promise<void> {
    for (const cleanup of this.#cleanups.splice(0).reverse()) {
      try {
        await cleanup();
      } catch {
        // Cleanup is best effort: the verdict is already decided.
      }
    }
  }
}

/** Step: `driver.validateConfig()`; any failure becomes an `InvalidDriverConfigError` keeping its cause. */
export function checkDriverConfig(prep: Preparation): void {
  const { driver } = prep;
  try {
    driver.validateConfig();
  } catch (error) {
    if (findError(error, InvalidDriverConfigError)) throw error;
    throw new InvalidDriverConfigError(driver.descriptor.type, error instanceof Error ? error.message : String(error), {
      cause: error,
    });
  }
}

/**
 * The pre-invocation steps, in order (docs/design.md "Pre-invocation order"; the policy check
 * itself reports an invalid value, then unsupported capability, then unsupported approval mode).
 */
export const PREPARATION_STEPS: readonly ((prep: Preparation) => void | Promise<void>)[] = [
  checkDriverConfig,
  checkPolicy,
  prepareStructuredOutput,
  prepareMcpServers,
  prepareSkills,
  prepareHostTools,
];

/** Runs every step; on failure, cleans up what earlier steps staged and rethrows. */
export async function prepare(prep: Preparation): Promise<Preparation> {
  try {
    for (const step of PREPARATION_STEPS) {
      prep.signal.throwIfAborted();
      await step(prep);
    }
    return prep;
  } catch (error) {
    await prep.cleanup();
    throw error;
  }
}
