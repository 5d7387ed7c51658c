// The `codex exec --json` event lines the driver reads (docs/protocols.md "codex exec
// --json"). They belong to codex's exec crate, not to the app-server protocol, so
// `app-server generate-ts` does not cover them; this is the subset seen
// on codex 0.171.0.

/** An item of an exec event. */
export type ExecItem =
  | { id: string; type: "agent_message"; text: string }
  | { id: string; type: "reasoning"; text: string }
  | {
      id: string;
      type: "command_execution";
      command: string;
      aggregated_output: string;
      exit_code: number | null;
      status: "in_progress" | "completed" | "failed" | "declined";
    }
  | {
      id: string;
      type: "file_change";
      changes: { path: string; kind: "add" | "delete" | "update" }[];
      status: "in_progress" | "completed" | "failed";
    }
  | { id: string; type: "error"; message: string }
  | { id: string; type: "todo_list"; items: { text: string; completed: boolean }[] }
  | { id: string; type: string; [key: string]: unknown };

/** Token usage of `turn.completed`. */
export interface ExecUsage {
  input_tokens: number;
  cached_input_tokens?: number;
  cache_write_input_tokens?: number;
  output_tokens: number;
  reasoning_output_tokens?: number;
}

/** One line of `codex exec --json`. */
export type ExecEvent =
  | { type: "thread.started"; thread_id: string }
  | { type: "turn.started" }
  | { type: "item.started" | "item.updated" | "item.completed"; item: ExecItem }
  | { type: "turn.completed"; usage?: ExecUsage }
  | { type: "turn.failed"; error: { message: string } }
  | { type: "error"; message: string };
