// The codex package's own test harness (scripted OpenAI server, isolated codex home), shared by
// these cross-package suites.
export { alive, codexHarness, NON_TMP_PARENT, type CodexHarness, type CodexHarnessOptions } from "../../packages/codex/test/support.js";
