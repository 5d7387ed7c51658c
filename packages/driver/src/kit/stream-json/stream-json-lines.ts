// The lines of the Claude-Code-style stream-json output (`--output-format stream-json --verbose`)
// the kit's StreamJsonTurn reads: Claude Code and the CLIs that speak its format (CodeBuddy Code).

/** A content block inside an `assistant` or `user` message. */
export type ContentBlock =
  | { type: "text"; text: string }
  | { type: "thinking"; thinking: string }
  | { type: "tool_use"; id: string; name: string; input: unknown }
  | { type: "tool_result"; tool_use_id: string; content?: string | { type: string; text?: string }[]; is_error?: boolean }
  | { type: string; [key: string]: unknown };

/** Token counts in the CLI's `result` line. */
export interface ResultUsage {
  input_tokens?: number;
  output_tokens?: number;
  cache_read_input_tokens?: number;
  cache_creation_input_tokens?: number;
}

/** The terminal `result` line. */
export interface ResultLine {
  type: "result";
  subtype: string;
  is_error: boolean;
  result?: string;
  session_id?: string;
  total_cost_usd?: number;
  usage?: ResultUsage;
  modelUsage?: Record<string, unknown>;
  api_error_status?: number | null;
  terminal_reason?: string;
  stop_reason?: string | null;
  num_turns?: number;
  permission_denials?: unknown[];
  structured_output?: unknown;
  /** Error texts, e.g. `"No conversation found with session ID: …"` for a failed `--resume`. */
  errors?: unknown[];
  /**
   * Per model, what this turn alone used and cost (`costUSD`), unlike `total_cost_usd` and
   * `modelUsage`, which are the session's running totals (restored on `--resume`, carried into a fork).
   */
  model_usage_since_last_result?: Record<string, Record<string, unknown> | undefined>;
  /** Time in ms the session's model API requests took so far (a running total, like `total_cost_usd`). */
  duration_api_ms?: number;
  /** Set on the result of a local slash command (e.g. `"compact"`), whose `duration_api_ms` is 0. */
  local_command?: string;
}
