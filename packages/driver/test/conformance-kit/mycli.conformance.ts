// The conformance kit against the fixture driver and each of its broken variants. Not a test file of
// the suite: `../conformance-kit.test.ts` runs it in a child vitest and reads which clauses failed.
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describeDriverConformance, type DriverFixture } from "@adaptor/driver/testing";
import { BREAKS, CLAUSES } from "./breaks.js";
import { myCliDriver, VARIANTS } from "./mycli-driver.js";

interface MyCliFixture extends DriverFixture {
  readonly dir: string;
}

for (const variant of VARIANTS) {
  const only = variant === "good" ? CLAUSES : BREAKS[variant];
  describeDriverConformance<MyCliFixture>(`mycli ${variant}`, {
    makeDriver: () => {
      const dir = mkdtempSync(join(tmpdir(), "adaptor-mycli-"));
      return { driver: myCliDriver({ sessionDir: dir, variant }), dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
    },
    scripted: {
      // "echo: hello (history 1)": input 11 per history entry (2), output its length.
      text: () => ({ request: { prompt: "hello" }, expectText: "echo: hello", expectUsage: { inputTokens: 22, outputTokens: 23 } }),
      toolApproval: (f) => ({ request: { prompt: `TOOL write ${f.dir}/tool.txt` }, toolRan: () => existsSync(join(f.dir, "tool.txt")) }),
      slow: () => ({ request: { prompt: "SLOW" } }),
      failing: () => ({ request: { prompt: "FAIL the model said no" }, expectMessage: "the model said no" }),
      crashing: () => ({ request: { prompt: "CRASH" } }),
    },
    skip: Object.fromEntries(CLAUSES.filter((id) => !only.includes(id)).map((id) => [id, "not what this variant breaks"])),
    makeForeignDriver: () => myCliDriver({ scirpt: "x" } as never),
    makeMissingDriver: () => myCliDriver({ command: "/nonexistent/mycli" }),
    concurrent: true,
  });
}
