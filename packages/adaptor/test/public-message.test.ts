import { describe, expect, it } from "vitest";
import { publicMessage, secretEnvValues } from "../src/index.js";

describe("redaction of credential-named environment values", () => {
  it("redacts values of 8 characters or more and leaves shorter ones, so a flag like `1` or `true` does not redact ordinary text", () => {
    const env = { DEPLOY_TOKEN: "hunter22", DB_PASSWORD: "hunter2", AUTH_ENABLED: "true", KEYTIMEOUT: "1", PATH: "/usr/bin:/bin" };
    expect(secretEnvValues(env)).toEqual(["hunter22"]);
    expect(publicMessage("true: step 1 refused hunter22 and hunter2", secretEnvValues(env))).toBe(
      "true: step 1 refused [redacted] and hunter2",
    );
  });
});
