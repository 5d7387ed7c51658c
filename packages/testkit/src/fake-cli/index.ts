export { fakeCliPath } from "./fake-cli-path.js";
export type { FakeCliStep } from "./fake-cli-step.js";
export { fakeCliEnv, type FakeCliOptions } from "./fake-cli-env.js";
export { processGone, waitForProcessGone } from "@adaptor/driver/kit";
