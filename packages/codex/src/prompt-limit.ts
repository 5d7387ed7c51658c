import { InvalidOptionError } from "@adaptor/errors";

/**
 * Most characters (Unicode code points) codex takes in one turn's text input, on both transports:
 * a longer one fails only after launch (`turn/start` "Input exceeds the maximum length").
 */
export const MAX_CODEX_PROMPT_CHARS = 1024 * 1024;

/**
 * Refuses a prompt codex would refuse after launch.
 * @throws InvalidOptionError (subject `run`, field `prompt`) for text longer than
 * {@link MAX_CODEX_PROMPT_CHARS} characters.
 */
export function checkCodexPrompt(prompt: string): void {
  // Code units are never fewer than code points: only a long string needs counting.
  if (prompt.length <= MAX_CODEX_PROMPT_CHARS) return;
  let chars = 0;
  for (const _ of prompt) chars++;
  if (chars > MAX_CODEX_PROMPT_CHARS)
    throw new InvalidOptionError({
      subject: "run",
      field: "prompt",
      reason: `holds ${chars} characters; codex takes at most ${MAX_CODEX_PROMPT_CHARS} (1 Mi) characters of text per turn`,
    });
}
