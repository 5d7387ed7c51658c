import { CODEX_EXEC_DESCRIPTOR } from "../src/index.js";
import { execArgs } from "../src/exec/exec-run.js";

export { CODEX_EXEC_DESCRIPTOR };

/** The exec argv for a bare prompt, for assertions on its shape. */
export function execArgsForTest(prompt: string): string[] {
  return execArgs({ runId: "r", prompt }, {}, {}, undefined);
}
