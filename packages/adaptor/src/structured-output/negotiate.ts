import { StructuredOutputUnsupportedError, type DriverDescriptor } from "@adaptor/driver";
import type { StructuredOutputSource } from "./structured-output.js";

/**
 * Chooses how a schema is honoured (the SDK decides, not the caller): the driver's
 * native JSON Schema enforcement when its descriptor declares it; otherwise instructions in the
 * prompt plus local validation when it declares that; otherwise it refuses.
 *
 * @throws StructuredOutputUnsupportedError `{ driver, reason }` (`ErrStructuredOutputUnsupported`)
 *   when the descriptor declares neither.
 */
export function negotiateStructuredOutput(descriptor: DriverDescriptor): StructuredOutputSource {
  const { native, prompt } = descriptor.capabilities.structuredOutput;
  if (native) return "native";
  if (prompt) return "prompt";
  throw new StructuredOutputUnsupportedError(
    descriptor.type,
    "the driver declares neither native JSON Schema enforcement nor prompt instructions with local validation",
  );
}
