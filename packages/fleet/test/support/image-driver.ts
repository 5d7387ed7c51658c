import type { DriverDescriptor, DriverRequest, DriverResponse, DriverSink, PromptImage } from "@adaptor/driver";
import { REFERENCE_DESCRIPTOR, ReferenceDriver } from "@adaptor/driver/testing";

/** The smallest PNG: a 1x1 transparent pixel. */
export const PNG = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==",
  "base64",
);

/** The reference driver with `images` declared, keeping each turn's prompt and images. */
export class ImageReferenceDriver extends ReferenceDriver {
  override readonly descriptor: DriverDescriptor = {
    ...REFERENCE_DESCRIPTOR,
    capabilities: { ...REFERENCE_DESCRIPTOR.capabilities, images: true },
  };
  readonly turns: { prompt: string; images: readonly PromptImage[] }[] = [];
  override run(request: DriverRequest, sink: DriverSink, signal: AbortSignal): Promise<DriverResponse> {
    this.turns.push({ prompt: request.prompt, images: request.images ?? [] });
    return super.run({ ...request, images: undefined } as DriverRequest, sink, signal);
  }
}
