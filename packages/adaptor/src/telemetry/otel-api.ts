// The OpenTelemetry API is loaded when a run has a tracer to use: one given in the options, or
// anything a host registered with the API (a tracer provider, a context manager). Without either
// every span would be a no-op and the run's parent context the root, so a plain program never
// loads it. Every copy of the API 1.x shares what was registered through a global symbol, so the
// CommonJS build loaded here sees a provider the host registered through its ES module build.
import { createRequire } from "node:module";
import type * as OTel from "@opentelemetry/api";

/** Where `@opentelemetry/api` 1.x keeps what was registered with it, for every copy of the API. */
const REGISTERED = Symbol.for("opentelemetry.js.api.1");

let api: typeof OTel | undefined;

/** `@opentelemetry/api`, loaded on the first call. */
export function otelApi(): typeof OTel {
  api ??= createRequire(import.meta.url)("@opentelemetry/api") as typeof OTel;
  return api;
}

/** Whether anything was registered with the OpenTelemetry API in this process (now or before). */
export function otelRegistered(): boolean {
  return (globalThis as { [REGISTERED]?: unknown })[REGISTERED] !== undefined;
}
