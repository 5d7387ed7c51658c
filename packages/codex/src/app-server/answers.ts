import { DriverError, ErrCode } from "@adaptor/errors";
import type { JsonRpcConnection } from "@adaptor/driver/kit";
import type { ThreadStartResponse } from "../protocol/generated/v2/ThreadStartResponse.js";
import type { ThreadTurnsListResponse } from "../protocol/generated/v2/ThreadTurnsListResponse.js";
import type { TurnStartResponse } from "../protocol/generated/v2/TurnStartResponse.js";

/** What the driver reads of a `thread/start`, `thread/resume` or `thread/fork` answer. */
export type ThreadOpened = Pick<ThreadStartResponse, "thread" | "model" | "modelProvider" | "approvalPolicy" | "sandbox"> &
  Partial<Pick<ThreadStartResponse, "cwd">>;

/** Reads one answer of `codex app-server`; throws {@link malformedAnswer} when it lacks what the driver reads. */
export type AnswerReader<T> = (method: string, answer: unknown) => T;

/** The longest excerpt of a malformed answer quoted in its error. */
const EXCERPT_CHARS = 200;

/**
 * The error for an answer of `codex app-server` to `method` that lacks what the driver reads
 * (`problem`, e.g. `has no turn.id`): DriverError `DRIVER`, op the method, the answer quoted (at
 * most 200 characters) in its cause.
 */
export function malformedAnswer(method: string, problem: string, answer: unknown): DriverError {
  const text = JSON.stringify(answer) ?? String(answer);
  const shown = text.length > EXCERPT_CHARS ? `${text.slice(0, EXCERPT_CHARS)}...` : text;
  return new DriverError({ op: method, device: "codex", code: ErrCode.Driver, cause: `the answer ${problem}: ${shown}` });
}

/** Sends `method` and reads its answer with `read` (a malformed one rejects with a `DRIVER` DriverError). */
export async function requestAnswer<T>(rpc: JsonRpcConnection, method: string, params: unknown, read: AnswerReader<T>): Promise<T> {
  return read(method, await rpc.request<unknown>(method, params));
}

/** The answer as an object, or the error saying it is not one. */
function record(method: string, answer: unknown): Record<string, unknown> {
  if (typeof answer !== "object" || answer === null || Array.isArray(answer)) throw malformedAnswer(method, "is not an object", answer);
  return answer as Record<string, unknown>;
}

/** `{ <key>: { id: string } }` of `answer`, or the error naming `<key>.id`. */
function withId(method: string, key: string, answer: unknown): Record<string, unknown> {
  const found = record(method, answer)[key];
  if (
    typeof found !== "object" ||
    found === null ||
    typeof (found as { id?: unknown }).id !== "string" ||
    (found as { id: string }).id === ""
  )
    throw malformedAnswer(method, `has no ${key}.id`, answer);
  return answer as Record<string, unknown>;
}

/** A `thread/start`, `thread/resume` or `thread/fork` answer: needs `thread.id`. */
export const threadOpened: AnswerReader<ThreadOpened> = (method, answer) => withId(method, "thread", answer) as unknown as ThreadOpened;

/** A `turn/start` answer: needs `turn.id`. */
export const turnStarted: AnswerReader<TurnStartResponse> = (method, answer) =>
  withId(method, "turn", answer) as unknown as TurnStartResponse;

/** A `thread/turns/list` page: needs `data`, a list of turns each with its `id`, and `nextCursor` (a string or null, if any). */
export const turnsPage: AnswerReader<ThreadTurnsListResponse> = (method, answer) => {
  const page = record(method, answer);
  const data = page.data;
  if (!Array.isArray(data)) throw malformedAnswer(method, "has no data list", answer);
  if (data.some((turn) => typeof (turn as { id?: unknown } | null)?.id !== "string"))
    throw malformedAnswer(method, "has a turn without its id", answer);
  const cursor = page.nextCursor;
  if (cursor !== undefined && cursor !== null && typeof cursor !== "string")
    throw malformedAnswer(method, "has a nextCursor that is not a string", answer);
  return { ...page, nextCursor: cursor ?? null } as unknown as ThreadTurnsListResponse;
};

/** Any answer the driver reads fields of: needs to be an object (its fields are read as optional). */
export const answerObject: AnswerReader<Record<string, unknown>> = (method, answer) => record(method, answer);
