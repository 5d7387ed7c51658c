import { walkError } from "@adaptor/errors";

/**
 * An expected, model-visible tool failure minted by {@link reject}: the agent sees `code` and
 * `message` verbatim. It is an `Error`, so a handler throws it (`throw reject(...)`).
 */
export interface Rejection extends Error {
  /** Machine-readable code for the model, e.g. `"not_found"`. */
  readonly code: string;
  /** Text for the model, delivered as is, e.g. `"no such order"`. */
  readonly message: string;
}

/**
 * Rejections minted by this module copy. Membership, not a brand: a lookalike object or a class
 * with the same fields and methods is never a member, and a `Symbol.for` key could be forged.
 * Consequence: a rejection minted by a second copy of `@adaptor/tool` in the same process is not
 * recognised by this one (it reaches the model as generic text, the safe side).
 */
const MINTED = new WeakSet<object>();

const CODE = /^[a-z][a-z0-9_.-]{0,63}$/;

class ToolRejection extends Error implements Rejection {
  readonly code: string;

  constructor(code: string, message: string) {
    super(message);
    this.name = "ToolRejection";
    this.code = code;
  }
}

/**
 * Makes the only tool failure the model sees verbatim.
 * Throw it from a handler; every other thrown value reaches the model as generic text.
 *
 * @param code - lower-case code, `[a-z][a-z0-9_.-]*`, at most 64 characters, e.g. `"not_found"`.
 * @param message - text for the model; it must hold nothing secret.
 * @throws TypeError when `code` or `message` is malformed (a programmer error).
 * @example
 * handler: async ({ id }) => {
 *   const order = await db.find(id);
 *   if (!order) throw reject("not_found", "no such order");
 *   return order;
 * }
 */
export function reject(code: string, message: string): Rejection {
  if (typeof code !== "string" || !CODE.test(code)) {
    throw new TypeError(`reject(code, message): code must match ${CODE.source}, got ${JSON.stringify(code)}`);
  }
  if (typeof message !== "string") throw new TypeError("reject(code, message): message must be a string");
  const rejection = new ToolRejection(code, message);
  MINTED.add(rejection);
  return rejection;
}

/**
 * The rejection minted by {@link reject} that `err` is or wraps (through `cause` and
 * `AggregateError.errors`), else `undefined`. Objects that merely look like a rejection (same
 * fields, same class name, same methods) are never recognised.
 */
export function asRejection(err: unknown): Rejection | undefined {
  let found: Rejection | undefined;
  walkError(err, (node) => {
    if (typeof node !== "object" || node === null || !MINTED.has(node)) return false;
    found = node as Rejection;
    return true;
  });
  return found;
}
