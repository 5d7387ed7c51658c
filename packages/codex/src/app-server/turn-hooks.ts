import type { DriverRequest, DriverSink } from "@adaptor/driver";
import type { ThreadInjectItemsParams } from "../protocol/generated/v2/ThreadInjectItemsParams.js";
import type { UserInput } from "../protocol/generated/v2/UserInput.js";

/**
 * How many `continueWith` answers in a row a run's `onStop` hook may give: the last of them is
 * not carried (the run completes with the agent's last text, and a `notice` `runtime` whose
 * `data.key` is {@link STOP_HOOK_BLOCK_CAP} says so). The same bound Claude Code applies by default
 * (`CLAUDE_CODE_STOP_HOOK_BLOCK_CAP`, 9): the hook is asked at most 9 times, the model answers at
 * most 9 times.
 */
export const STOP_HOOK_CAP = 9;

/** The `data.key` of the notice that a run ended over a stop hook that kept asking the agent to go on. */
export const STOP_HOOK_BLOCK_CAP = "stop-hook-block-cap";

/**
 * The user input of a `turn/start` (or `turn/steer`) for the text `prompt`: `imageFiles` first, as
 * `localImage` items (the user's file, or a copy of the bytes): codex labels each
 * `<image name=[Image #n] path="…">` … `</image>`, as its exec does; then the prompt's text. When the
 * request has an `onPromptSubmit` hook (`request.hooks` lists `promptSubmit`), the hook is asked
 * first, and its `additionalContext` goes to `addContext` (which puts it into the thread's history
 * ahead of the message, not into the message: the thread's title and first prompt stay the user's).
 */
export async function promptInput(
  request: Pick<DriverRequest, "hooks">,
  sink: DriverSink,
  prompt: string,
  imageFiles: readonly string[],
  addContext: (text: string) => Promise<void>,
): Promise<UserInput[]> {
  const answer = request.hooks?.includes("promptSubmit") && sink.hook ? await sink.hook({ point: "promptSubmit", prompt }) : {};
  if (answer.additionalContext) await addContext(answer.additionalContext);
  return [
    ...imageFiles.map((path): UserInput => ({ type: "localImage", path })),
    // No empty text item beside an image: the API refuses an empty text.
    ...(prompt !== "" || imageFiles.length === 0 ? [{ type: "text", text: prompt, text_elements: [] } satisfies UserInput] : []),
  ];
}

/**
 * The `thread/inject_items` params that add a host's `text` (an `onPromptSubmit` hook's
 * `additionalContext`) to thread `threadId`'s model-visible history as a developer message: the
 * model reads it just before the user message that follows, and codex lists neither it as the
 * thread's title nor it among the thread's user messages.
 */
export function contextItems(threadId: string, text: string): ThreadInjectItemsParams {
  return { threadId, items: [{ type: "message", role: "developer", content: [{ type: "input_text", text }] }] };
}

/**
 * Asks the request's `onStop` hook (when `request.hooks` lists `stop`) about a turn that ended
 * with `text`, the `continuations`-th of the run after its first. Returns the text to go on with
 * in another turn, or undefined for none: no hook, an empty answer, or the {@link STOP_HOOK_CAP}-th
 * `continueWith` in a row (the notice {@link STOP_HOOK_BLOCK_CAP} is then emitted).
 */
export async function stopContinuation(
  request: Pick<DriverRequest, "hooks">,
  sink: DriverSink,
  text: string | undefined,
  continuations: number,
): Promise<string | undefined> {
  if (!request.hooks?.includes("stop") || !sink.hook) return undefined;
  const answer = await sink.hook({
    point: "stop",
    ...(text !== undefined ? { text } : {}),
    ...(continuations > 0 ? { continued: true } : {}),
  });
  if (!answer.continueWith) return undefined;
  if (continuations + 1 >= STOP_HOOK_CAP) {
    sink.emit({
      type: "notice",
      kind: "runtime",
      message: `the onStop hook asked the agent to go on ${STOP_HOOK_CAP} times in a row: the run ends with its last answer`,
      data: { key: STOP_HOOK_BLOCK_CAP, limit: STOP_HOOK_CAP },
    });
    return undefined;
  }
  return answer.continueWith;
}
