import type { A2AFleetEvent } from "./fleet-front.js";

/** An approval-request's request as a fleet run records it (the SDK's fields as JSON). */
export interface RecordedRequest {
  readonly id: string;
  readonly kind?: string;
  readonly title?: string;
  readonly toolName?: string;
  readonly input?: unknown;
  readonly choices?: readonly unknown[];
  readonly deadline?: string;
  /** The rules an answer could remember (`ApprovalRequest.suggestions`). */
  readonly suggestions?: readonly unknown[];
}

/** A run's stored verdict, as far as a task needs it. */
export interface RecordedVerdict {
  readonly kind: string;
  readonly result?: { readonly text?: string };
}

/** What one fleet event changes for the A2A task. */
export type RunChange =
  | { readonly kind: "text"; readonly text: string; readonly append: boolean }
  | { readonly kind: "asked"; readonly request: RecordedRequest }
  | { readonly kind: "resolved"; readonly id: string }
  | { readonly kind: "restarted" }
  | { readonly kind: "verdict"; readonly verdict: RecordedVerdict };

/**
 * A fleet run seen as an A2A task, rebuilt from its event log: the answer text streamed so far
 * (of the current attempt), the approvals waiting (asked, not yet resolved), and the verdict. The
 * same log gives the same view on every front-end.
 */
export class RunView {
  /** The last event applied. */
  sequence = 0;
  /** The answer text of the current attempt so far. */
  text = "";
  /** Approvals asked and not resolved, oldest first, by id. */
  readonly pending = new Map<string, RecordedRequest>();
  verdict: RecordedVerdict | undefined;

  /** Applies one event; returns what it changes. */
  apply(entry: A2AFleetEvent): RunChange[] {
    this.sequence = entry.sequence;
    const event = entry.event as { readonly type: string } & Record<string, unknown>;
    switch (event.type) {
      case "attempt-started": {
        if (Number(event["attempt"]) <= 1) return [];
        // A lost worker's run starts over elsewhere: its text and its questions are gone.
        this.text = "";
        this.pending.clear();
        return [{ kind: "restarted" }];
      }
      case "text-delta": {
        const text = typeof event["text"] === "string" ? event["text"] : "";
        if (!text) return [];
        const append = this.text !== "";
        this.text += text;
        return [{ kind: "text", text, append }];
      }
      case "approval-request": {
        const request = event["request"] as RecordedRequest | undefined;
        if (!request || typeof request.id !== "string") return [];
        this.pending.set(request.id, request);
        return [{ kind: "asked", request }];
      }
      case "notice": {
        const data = event["data"] as { readonly id?: unknown } | undefined;
        if (event["kind"] !== "approval.resolved" || typeof data?.id !== "string") return [];
        if (!this.pending.delete(data.id)) return [];
        return [{ kind: "resolved", id: data.id }];
      }
      case "verdict": {
        const verdict = event["verdict"] as RecordedVerdict | undefined;
        if (!verdict) return [];
        this.verdict = verdict;
        this.pending.clear();
        return [{ kind: "verdict", verdict }];
      }
      default:
        return [];
    }
  }

  /** The oldest waiting approval. */
  get oldest(): RecordedRequest | undefined {
    return this.pending.values().next().value;
  }
}
