import type { Tracer } from "@opentelemetry/api";

/**
 * OpenTelemetry settings of an Agent. The SDK depends only on `@opentelemetry/api`: with no
 * tracer provider registered every span is a no-op and costs next to nothing.
 */
export interface TelemetryOptions {
  /** The tracer for the run's spans. Default: `trace.getTracer("adaptor")` from the global provider. */
  readonly tracer?: Tracer;
  /**
   * Also record content: the prompt (`adaptor.prompt`), tool inputs (`adaptor.tool.input`), denial
   * reasons and error messages. Default false: spans carry identities, codes, counts and times only.
   */
  readonly recordContent?: boolean;
}
