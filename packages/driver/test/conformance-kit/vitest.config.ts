// Runs only the fixture suite `mycli.conformance.ts`, with the repository's aliases and settings.
import base from "../../../../vitest.config.js";

export default { ...base, test: { ...base.test, include: ["packages/driver/test/conformance-kit/mycli.conformance.ts"] } };
