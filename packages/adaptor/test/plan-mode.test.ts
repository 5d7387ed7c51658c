import { describe, expect, it } from "vitest";
import type { DriverRequest } from "@adaptor/driver";
import { Agent, FeatureUnsupportedError, InvalidOptionError } from "../src/index.js";
import { scriptedDriver } from "./scripted-driver.js";

/** A driver that records its requests; `planMode` declares the capability. */
function recording(planMode: boolean) {
  const requests: DriverRequest[] = [];
  const driver = scriptedDriver(async (request) => {
    requests.push(request);
    return { text: "ok" };
  });
  if (planMode) {
    (driver as { descriptor: unknown }).descriptor = {
      ...driver.descriptor,
      capabilities: { ...driver.descriptor.capabilities, planMode: true },
    };
  }
  return { driver, requests };
}

describe("run option planMode", () => {
  it("is refused before launch with FeatureUnsupportedError by a driver without a plan mode", async () => {
    const { driver, requests } = recording(false);
    const agent = new Agent(driver);
    const error = await agent.run("p", { planMode: true }).catch((thrown: unknown) => thrown);
    await agent.close();
    expect(error).toBeInstanceOf(FeatureUnsupportedError);
    expect(error).toMatchObject({ feature: "planMode" });
    expect(requests).toEqual([]);
  });

  it("reaches a driver that declares it as request.planMode; false or unset sends nothing", async () => {
    const { driver, requests } = recording(true);
    const agent = new Agent(driver);
    await agent.run("p", { planMode: true });
    await agent.run("p", { planMode: false });
    await agent.run("p");
    await agent.close();
    expect(requests.map((r) => r.planMode)).toEqual([true, undefined, undefined]);
  });

  it("a value that is not a boolean is InvalidOptionError", async () => {
    const agent = new Agent(recording(true).driver);
    const error = await agent.run("p", { planMode: "yes" as unknown as boolean }).catch((thrown: unknown) => thrown);
    await agent.close();
    expect(error).toBeInstanceOf(InvalidOptionError);
    expect(error).toMatchObject({ field: "planMode" });
  });
});
