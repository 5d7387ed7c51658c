// Pins the runtime export list of @adaptor/a2a, so any change of surface shows up in review as a
// diff of this file. Type-only exports are not runtime keys and are not listed.
import * as client from "@adaptor/a2a-client";
import { describe, expect, it } from "vitest";
import * as a2a from "../src/index.js";

describe("public surface", () => {
  it("@adaptor/a2a", async () => {
    expect(Object.keys(await import("@adaptor/a2a")).sort()).toEqual([
      "A2AClient",
      "AGENT_CARD_PATH",
      "BACKGROUND_CANCEL_TIMEOUT_MS",
      "DEFAULT_CONNECT_TIMEOUT_MS",
      "DEFAULT_DELEGATION_TIMEOUT_MS",
      "DEFAULT_MAX_DELEGATION_TEXT_CHARS",
      "DEFAULT_MAX_REDIRECTS",
      "DEFAULT_MAX_RESPONSE_BYTES",
      "DEFAULT_RECOVERY_ATTEMPTS",
      "DEFAULT_RECOVERY_DELAY_MS",
      "DELEGATION_NOTICE",
      "DelegationError",
      "ErrInvalidAgentCard",
      "ErrNotFound",
      "ErrProtocol",
      "ErrUnauthorized",
      "ErrUnsupported",
      "ErrUntrustedOrigin",
      "FAILURE_METADATA_KEY",
      "FLEET_RUN_METADATA_KEY",
      "MAX_AGENT_CARD_BYTES",
      "MAX_FAILURE_MESSAGE_CHARS",
      "MAX_REMOTE_MESSAGE_CHARS",
      "ProtocolError",
      "RESPONSE_ARTIFACT_ID",
      "StreamRecoveryError",
      "a2aDelegation",
      "a2aFleetServer",
      "a2aServer",
      "delegate",
      "isFinalState",
      "taskFailure",
      "taskStateName",
      "textOf",
    ]);
  });

  it("@adaptor/a2a/postgres", async () => {
    expect(Object.keys(await import("@adaptor/a2a/postgres")).sort()).toEqual(["PostgresTaskStore"]);
  });

  it("@adaptor/a2a re-exports the client package's identities and API as the same objects", () => {
    for (const name of Object.keys(client)) {
      if (name === "MAX_RAW_CHARS" || name === "sanitizeRaw" || name === "redactCredentials") continue;
      expect((a2a as Record<string, unknown>)[name], name).toBe((client as Record<string, unknown>)[name]);
    }
  });
});
