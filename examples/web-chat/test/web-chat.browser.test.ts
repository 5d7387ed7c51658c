import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium, type BrowserContext } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startWebChat, type WebChat } from "../src/server.js";

// The web chat in headless Chromium (Debian's `chromium`, driven by playwright-core): a person
// types a task, approves the first tool call, denies the second, and sees the final answer. A
// screenshot lands in .scratch/web-chat.png. Without Chromium the test is skipped with a reason.

const CHROMIUM = process.env["CHROMIUM_PATH"] ?? "/usr/bin/chromium";
const SCREENSHOT = resolve(dirname(fileURLToPath(import.meta.url)), "../../../.scratch/web-chat.png");
const hasChromium = existsSync(CHROMIUM);
const SKIP_REASON = `web-chat browser test skipped: no Chromium at ${CHROMIUM} (install Debian's chromium package: apt-get install -y chromium, or set CHROMIUM_PATH)`;
if (!hasChromium) console.warn(SKIP_REASON);

let chat: WebChat | undefined;
let context: BrowserContext | undefined;
let profile = "";

beforeAll(async () => {
  if (!hasChromium) return;
  chat = await startWebChat();
  profile = await mkdtemp(join(tmpdir(), "adaptor-chromium-"));
  context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
    viewport: { width: 1000, height: 900 },
  });
});

afterAll(async () => {
  await context?.close();
  await chat?.close();
  if (profile) await rm(profile, { recursive: true, force: true });
});

describe("web chat in a real browser (real claude binary, scripted model)", { timeout: 180_000 }, () => {
  it("types a task, approves the Write, denies the Bash call, and shows the final text", async (ctx) => {
    if (!hasChromium) return ctx.skip(SKIP_REASON);
    const page = await context!.newPage();
    await page.goto(chat!.url);
    await page.getByLabel("Task").fill("Write down that the release notes need a tidy-up.");
    await page.getByRole("button", { name: "Send" }).click();

    const first = page.locator(".approval").nth(0);
    await first.getByRole("button", { name: "Approve" }).click({ timeout: 120_000 });
    await expectText(first.locator(".status"), "approved");
    expect(await first.locator(".title").textContent()).toMatch(/^Allow Write/);

    const second = page.locator(".approval").nth(1);
    await second.getByRole("button", { name: "Deny" }).click({ timeout: 120_000 });
    await expectText(second.locator(".status"), "denied");
    expect(await second.locator(".title").textContent()).toBe("Allow Bash: rm -rf ./build?");

    await page.locator(".verdict").waitFor({ timeout: 120_000 });
    expect(await page.locator(".verdict").textContent()).toBe("✓ Done");
    const said = await page.locator(".assistant").allTextContents();
    expect(said.at(-1)).toBe("I wrote NOTES.md with your task. You declined `rm -rf ./build`, so the build folder is untouched.");
    expect(await page.locator(".tool.ok .name").first().textContent()).toBe("Write");
    expect(await page.locator(".tool.error .name").first().textContent()).toBe("Bash");

    expect(await readFile(join(chat!.projectDir, "NOTES.md"), "utf8")).toContain("release notes need a tidy-up");
    expect(existsSync(join(chat!.projectDir, "build", "old-bundle.js"))).toBe(true);

    await mkdir(dirname(SCREENSHOT), { recursive: true });
    // Tall enough for the whole conversation above the sticky composer.
    await page.setViewportSize({ width: 1000, height: 1500 });
    await page.screenshot({ path: SCREENSHOT });
    expect(existsSync(SCREENSHOT)).toBe(true);
  });
});

/** Waits until `locator`'s text is `text` (the page updates after the answer's POST returns). */
async function expectText(locator: import("playwright-core").Locator, text: string): Promise<void> {
  await locator.filter({ hasText: new RegExp(`^${text}$`) }).waitFor({ timeout: 60_000 });
}
