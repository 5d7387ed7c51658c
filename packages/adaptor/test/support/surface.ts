// The public surfaces the identity tests read, gathered in one object so the same table can be
// run against the original modules and against a second, separately bundled copy (./copy.ts).
import * as root from "adaptor";
import * as a2a from "@adaptor/a2a-client";
import * as driver from "@adaptor/driver";
import * as errors from "@adaptor/errors";
import * as mcp from "@adaptor/mcp";
import * as sessionrecorder from "@adaptor/sessionrecorder";
import * as skill from "@adaptor/skill";
import * as threadstore from "@adaptor/threadstore";
import * as tool from "@adaptor/tool";

/** Every module namespace that owns a seed 002 identity, keyed by a short name. */
export interface Surface {
  readonly root: typeof root;
  readonly errors: typeof errors;
  readonly driver: typeof driver;
  readonly skill: typeof skill;
  readonly mcp: typeof mcp;
  readonly tool: typeof tool;
  readonly threadstore: typeof threadstore;
  readonly sessionrecorder: typeof sessionrecorder;
  readonly a2a: typeof a2a;
}

/** The package name behind each {@link Surface} key. */
export const PACKAGE_OF = {
  root: "adaptor",
  errors: "@adaptor/errors",
  driver: "@adaptor/driver",
  skill: "@adaptor/skill",
  mcp: "@adaptor/mcp",
  tool: "@adaptor/tool",
  threadstore: "@adaptor/threadstore",
  sessionrecorder: "@adaptor/sessionrecorder",
  a2a: "@adaptor/a2a-client",
} as const satisfies Record<keyof Surface, string>;

export type SurfaceKey = keyof typeof PACKAGE_OF;

/** The modules as the rest of the test suite imports them. */
export const original: Surface = { root, errors, driver, skill, mcp, tool, threadstore, sessionrecorder, a2a };

/** `surface[key][name]`, read without the compiler knowing `name`. */
export function exported(surface: Surface, key: SurfaceKey, name: string): unknown {
  const namespace = surface[key] as unknown as Readonly<Record<string, unknown>>;
  if (!(name in namespace)) throw new Error(`${PACKAGE_OF[key]} does not export ${name}`);
  return namespace[name];
}
