import { describe, expect, it } from "vitest";
import { connectionStringProblem } from "./connection-string.js";

describe("connectionStringProblem", () => {
  it("accepts what pg parses: URLs with or without a host, query parameters, a socket path, a space", () => {
    for (const ok of [
      "postgres://u:pw@127.0.0.1:5432/db",
      "postgresql://u@[::1]:5432/db?sslmode=require",
      "postgres:///db?host=/var/run/postgresql",
      "postgres://u:pw@/db",
      "socket:/var/run/postgresql?db=app",
      "/var/run/postgresql app",
      "postgres://u:p w@host/db",
    ]) {
      expect([ok, connectionStringProblem(ok)]).toEqual([ok, undefined]);
    }
  });

  it("refuses a malformed port or host and a non-string, never quoting the password", () => {
    for (const bad of ["postgres://u:SuperSecretPw42@127.0.0.1:notaport/db", "postgres://u:SuperSecretPw42@[::1"]) {
      const reason = connectionStringProblem(bad);
      expect(reason).toMatch(/is not a valid connection URL/);
      expect(reason).not.toContain("SuperSecretPw42");
    }
    expect(connectionStringProblem("")).toBe("must be a non-empty string");
    expect(connectionStringProblem(42)).toBe("must be a non-empty string");
  });
});
