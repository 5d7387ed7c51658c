import { describe, expect, it } from "vitest";
import { publicMessage, redactCredentials, secretEnvValues } from "./public-message.js";

describe("publicMessage redacts common credential formats", () => {
  it.each([
    ["JSON password pair", '{"password":"hunter3pw"}', '{"password":"[redacted]"}'],
    ["JSON api_key pair with spaces", '{"user": "ann", "api_key": "abcd 1234"}', '{"user": "ann", "api_key": "[redacted]"}'],
    ["JSON secret pair, escaped quote", '{"client_secret":"a\\"b"}', '{"client_secret":"[redacted]"}'],
    ["single-quoted token pair", "{'token': 'tok-123456'}", "{'token': \"[redacted]\"}"],
    ["GitHub classic token", "push ghp_abcdefghijklmnopqrstuvwxyz0123456789 denied", "push [redacted] denied"],
    ["GitHub OAuth token", "gho_ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", "[redacted]"],
    ["GitHub fine-grained PAT", "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz", "[redacted]"],
    ["Slack bot token", "slack xoxb-1234-5678-abcdefgh failed", "slack [redacted] failed"],
    ["Slack user token", "xoxp-1234-5678-abcdefgh", "[redacted]"],
    ["AWS access key id", "key AKIAIOSFODNN7EXAMPLE invalid", "key [redacted] invalid"],
    ["AWS temporary key id", "ASIAIOSFODNN7EXAMPLE", "[redacted]"],
    ["Google API key", "AIzaSyA-abcdefghijklmnopqrstuvwxyz01234 rejected", "[redacted] rejected"],
    ["JWT", "jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.abcdefghijklmnop expired", "jwt [redacted] expired"],
    ["PEM private key on one line", "bad key -----BEGIN PRIVATE KEY----- MIIEvQIBADANBg", "bad key [redacted]"],
    ["PEM RSA private key block", "x -----BEGIN RSA PRIVATE KEY-----MIIEow-----END RSA PRIVATE KEY----- y", "x [redacted] y"],
    ["URL with an empty user", "connect redis://:onlypass@host:6379 refused", "connect redis://[redacted]@host:6379 refused"],
    ["URL password with a space", "postgresql://user:pa ss@h/db", "postgresql://[redacted]@h/db"],
    ["URL user and password", "mongodb+srv://u:mongopass@c.x.net", "mongodb+srv://[redacted]@c.x.net"],
    ["URL with a token as its user", "clone https://ghs-token-123@git.example/r failed", "clone https://[redacted]@git.example/r failed"],
    [
      "URL query parameters named like credentials",
      "GET https://s3.example/o?X-Amz-Signature=abc123&sig=def456&page=2 returned 403",
      "GET https://s3.example/o?X-Amz-Signature=[redacted]&sig=[redacted]&page=2 returned 403",
    ],
    ["sk- API key", "sk-proj-abcdefghijklmnopqrstuvwxyz012345", "[redacted]"],
    ["NAME=value pair", "password=hunter4pw", "password=[redacted]"],
    ["Cookie header", "request failed; cookie: sid=abc123def456; theme=dark", "request failed; cookie: [redacted]"],
    ["Set-Cookie header", "Set-Cookie: session=zz9plural; HttpOnly", "Set-Cookie: [redacted]"],
  ])("%s", (_name, message, expected) => {
    expect(publicMessage(message)).toBe(expected);
  });

  it("redacts a secret base64-encoded inside a longer encoded text at any byte offset, and URL-encoded with lowercase hex", () => {
    const secret = "Zq9+/Wk3vT7pLm2Xr8Yb";
    const secrets = secretEnvValues({ MY_API_KEY: secret });
    const base64 = (text: string) => Buffer.from(text).toString("base64");
    const text = `state ${base64(JSON.stringify({ token: secret }))} cfg ${base64(`key=${secret}`)} url ${encodeURIComponent(secret).toLowerCase()}`;
    const expected = "state eyJ0b2tlbiI6Il[redacted]In0= cfg a2V5PV[redacted] url [redacted]";
    expect(publicMessage(text, secrets)).toBe(expected);
    expect(redactCredentials(text, secrets)).toBe(expected);
  });

  it("an empty value among the secrets redacts nothing (it matched between every character)", () => {
    expect(publicMessage("disk full", ["", "dbpassenv99"])).toBe("disk full");
  });

  it("redacts the value of an environment variable whose name contains PASS", () => {
    const secrets = secretEnvValues({ DB_PASS: "dbpassenv99", PGPASSWORD: "pgpassword-1", PATH: "/usr/bin:/bin/long" });
    expect(secrets).toEqual(["pgpassword-1", "dbpassenv99"]);
    expect(publicMessage("login with dbpassenv99 failed", secrets)).toBe("login with [redacted] failed");
  });

  it.each([
    ["ordinary text", "The model returned an invalid response: expected a tool call"],
    ["a UUID", "thread 3f2b8c1e-7d4a-4e6b-9a2f-0c1d2e3f4a5b not found"],
    ["ids", "run run_01HZX3K4Q5 tool toolu_01ABCDEF session sess-12345678"],
    ["a path", "ENOENT: no such file or directory, open '/home/ann/project/src/api-key.ts'"],
    ["a URL with a port and prose", "fetch http://localhost:8080 failed; mail admin@example.com"],
    ["a URL without credentials", "GET https://api.example.com/v1/messages returned 529"],
    ["an email address", "ownership: ann@example.com"],
    ["upper-case words", "ASIAN AKIA HTTP ERROR"],
    ["the word cookie in prose", "the cookie jar is empty"],
  ])("leaves %s alone", (_name, message) => {
    expect(publicMessage(message)).toBe(message);
  });
});

describe("redactCredentials redacts like publicMessage and changes nothing else", () => {
  it("every line is kept and redacted: a URL password, a GitHub token, a secret value, a name=value pair", () => {
    const text =
      "db=postgres://admin:hunter2@db/prod\n  token=ghp_abcdefghijklmnopqrstuvwxyz0123456789 ok\nenv has s3cr3t-value-1 and api_key=abc";
    expect(redactCredentials(text, ["s3cr3t-value-1"])).toBe(
      "db=postgres://[redacted]@db/prod\n  token=[redacted] ok\nenv has [redacted] and api_key=[redacted]",
    );
  });

  it("a PEM private key block over several lines is redacted whole; the lines around it stay", () => {
    const text = "before\n-----BEGIN RSA PRIVATE KEY-----\nMIIEabc\ndef\n-----END RSA PRIVATE KEY-----\nafter";
    expect(redactCredentials(text)).toBe("before\n[redacted]\nafter");
  });

  it("text without credentials is returned as it is, however long", () => {
    const text = `line one\n\tline two ${"x".repeat(2_000)}`;
    expect(redactCredentials(text)).toBe(text);
  });
});
