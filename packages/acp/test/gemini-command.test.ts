// Where gemini() finds gemini-cli: the optional peer's bundle when it is installed (as in this
// workspace), the given command otherwise; a command that does not exist fails the run with
// NOT_FOUND naming it, before anything is sent.
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { Agent, DriverError, ErrCode, findError } from "adaptor";
import { gemini, geminiAcpConfig } from "@adaptor/acp";

describe("gemini() command", () => {
  it("runs the installed @google/gemini-cli bundle with this Node when no command is given", () => {
    const bundle = join(dirname(createRequire(import.meta.url).resolve("@google/gemini-cli/package.json")), "bundle", "gemini.js");
    const config = geminiAcpConfig({});
    expect(config.command).toBe(process.execPath);
    expect(config.args).toEqual([bundle, "--acp"]);
  });

  it("runs a given command as is, with --acp", () => {
    const config = geminiAcpConfig({ command: "/opt/gemini/bin/gemini" });
    expect(config.command).toBe("/opt/gemini/bin/gemini");
    expect(config.args).toEqual(["--acp"]);
  });

  it("a command that is not installed fails the run with a NOT_FOUND DriverError naming it", async () => {
    await using agent = new Agent(gemini({ command: "gemini-cli-not-installed-here" }));
    const error = await agent.run("hello").then(
      () => undefined,
      (err: unknown) => err,
    );
    const driverError = findError(error, DriverError);
    expect(driverError?.code).toBe(ErrCode.NotFound);
    expect(String(driverError)).toContain("gemini-cli-not-installed-here");
  });
});
