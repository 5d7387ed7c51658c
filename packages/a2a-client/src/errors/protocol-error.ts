import { AdaptorError } from "@adaptor/errors";
import { redactCredentials, sanitizeRaw } from "./sanitize.js";
import { ErrProtocol } from "./sentinels.js";

/** Fields of a {@link ProtocolError}. */
export interface ProtocolErrorInit {
  /** The client operation, e.g. `"agent-card"`, `"message/send"`, `"message/stream"`, `"tasks/get"`, `"tasks/cancel"`, `"tasks/resubscribe"`. */
  readonly op: string;
  /** What went wrong, for people, e.g. `"HTTP 401"`, `"task not found"`, `"response is not JSON"`. */
  readonly reason: string;
  /** The failure this one reports; its identities are this error's identities. */
  readonly cause?: unknown;
  /** What the remote sent (a body, an event), kept only after {@link sanitizeRaw}. */
  readonly raw?: string;
  /** Credential values to redact from `raw`, `reason` and the message, besides the built-in patterns. */
  readonly secrets?: readonly string[];
}

/**
 * A failed A2A client operation: which operation (`op`), why (`reason`), the lower-level failure
 * (`cause`) and a sanitised excerpt of what the remote sent (`raw`: credentials redacted, control
 * characters removed, at most 2048 characters).
 *
 * Identity: a `ProtocolError` with a `cause` matches what its cause matches (an HTTP 401 carries
 * `ErrUnauthorized`, an unknown task `ErrNotFound`, a dropped connection the network error);
 * one without a `cause` matches {@link ErrProtocol}. Its message and `reason` are redacted as `raw`
 * is (credentials, secret-looking fields, control characters), since they may quote the remote.
 */
export class ProtocolError extends AdaptorError {
  static override readonly brand: symbol = Symbol.for("adaptor.error.ProtocolError");
  /** The client operation that failed. */
  readonly op: string;
  /** Why it failed, for people. */
  readonly reason: string;
  /** Sanitised excerpt of what the remote sent, when there was something. */
  readonly raw: string | undefined;

  constructor(init: ProtocolErrorInit) {
    const hasCause = init.cause !== undefined;
    const causeText = hasCause && init.cause instanceof Error ? ` (${init.cause.message})` : "";
    // The reason and the cause's message may quote the remote (an error body that echoes the
    // request's credentials): they are redacted like `raw`.
    const reason = redactCredentials(init.reason, init.secrets);
    super(
      `a2a ${init.op}: ${reason}${redactCredentials(causeText, init.secrets)}`,
      hasCause ? { cause: init.cause } : { sentinel: ErrProtocol },
    );
    this.op = init.op;
    this.reason = reason;
    this.raw = init.raw === undefined ? undefined : sanitizeRaw(init.raw, init.secrets);
  }
}
