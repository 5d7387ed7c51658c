import type { ThreadRecordDraft } from "../contract/thread-record.js";

/** A fresh record under `key`; ids are unique, times are whole seconds in 2026 unless overridden. */
export function record(key: string, patch: Partial<ThreadRecordDraft> = {}): ThreadRecordDraft {
  const createdAt = patch.createdAt ?? at(0);
  return {
    id: globalThis.crypto.randomUUID(),
    key,
    status: "active",
    driverType: "claude",
    identity: "tenant-1/user-1",
    fingerprint: "fp-0123456789abcdef",
    codec: "json/v1",
    checkpoint: { resumeId: `resume-${key}`, data: { turns: 1 } },
    createdAt,
    updatedAt: new Date(createdAt.getTime() + 500),
    ...patch,
  };
}

/** 2026-01-01T00:00:00Z plus `seconds`. */
export function at(seconds: number): Date {
  return new Date(Date.UTC(2026, 0, 1, 0, 0, seconds));
}
