import { describe, expect, it } from "vitest";
import { REDACTED } from "./redact-values.js";
import { isCredentialParam, redactUrlCredentials } from "./redact-url-credentials.js";

describe("redactUrlCredentials: a URL's whole userinfo and its credential-named query values", () => {
  it.each([
    [
      "user and password",
      "Request cannot be constructed from http://user:PW-1@h:1/x",
      "Request cannot be constructed from http://[redacted]@h:1/x",
    ],
    ["a token as the user", '{"url":"https://ghp-token@git.example/r"}', '{"url":"https://[redacted]@git.example/r"}'],
    ["an empty user", "connect redis://:onlypass@host:6379 refused", "connect redis://[redacted]@host:6379 refused"],
    ["a password with a space", "postgresql://user:pa ss@h/db", "postgresql://[redacted]@h/db"],
    [
      "a scheme with + and a user alone",
      "mongodb+srv://u:mongopass@c.x.net and ssh://git@h",
      "mongodb+srv://[redacted]@c.x.net and ssh://[redacted]@h",
    ],
    [
      "a credential query value",
      "HTTP 404 for http://h/card.json?api_key=K-1&page=2",
      "HTTP 404 for http://h/card.json?api_key=[redacted]&page=2",
    ],
    [
      "every credential parameter name, in the query and the fragment",
      "http://h/?a=1;session=Z-1&access_token=T-1&X-Amz-Signature=S-1&sig=G-1&pwd=P-1&Auth=A-1#id_token=I-1",
      "http://h/?a=1;session=[redacted]&access_token=[redacted]&X-Amz-Signature=[redacted]&sig=[redacted]&pwd=[redacted]&Auth=[redacted]#id_token=[redacted]",
    ],
    ["userinfo and query together", "https://u:p@h/x?token=abc", "https://[redacted]@h/x?token=[redacted]"],
    ["each URL on each line", "a http://u:p@h\nb https://x/?secret=s", "a http://[redacted]@h\nb https://x/?secret=[redacted]"],
  ])("redacts %s", (_name, text, expected) => {
    expect(redactUrlCredentials(text)).toBe(expected);
  });

  it.each([
    ["a port followed by prose and a later @", "fetch http://localhost:8080 failed; mail admin@example.com"],
    ["an @ in a path and ordinary parameters", "http://h/a@b?design=x&page=2 mail me@example.com"],
    ["a URL without credentials", "GET https://api.example.com/v1/messages?page=2 returned 529"],
    ["an email address", "ownership: ann@example.com"],
    ["a parameter named like a credential with no value", "http://h/?token=&page=1"],
  ])("leaves %s alone", (_name, text) => {
    expect(redactUrlCredentials(text)).toBe(text);
  });

  it("writes the SDK's one marker, [redacted], unless given another", () => {
    expect(REDACTED).toBe("[redacted]");
    expect(redactUrlCredentials("https://u:p@h/?key=k", "***")).toBe("https://***@h/?key=***");
  });

  it("isCredentialParam names the parameters whose values it redacts", () => {
    for (const name of [
      "api_key",
      "access_token",
      "X-Amz-Signature",
      "sig",
      "SIG",
      "password",
      "passwd",
      "pwd",
      "client_secret",
      "auth",
      "session",
      "credential",
    ]) {
      expect(isCredentialParam(name)).toBe(true);
    }
    for (const name of ["page", "design", "signal", "q", "id"]) expect(isCredentialParam(name)).toBe(false);
  });
});
