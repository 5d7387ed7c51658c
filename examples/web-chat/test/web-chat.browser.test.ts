import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium, type BrowserContext, type Page } from "playwright-core";
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
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      // DNS rebinding, staged: the attacker's name resolves to this machine.
      "--host-resolver-rules=MAP evil.example 127.0.0.1",
    ],
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
    await tellStory(page, "Write down that the release notes need a tidy-up.");
    const dir = chat!.taskDirs.at(-1)!;
    expect(dirname(dir)).toBe(chat!.projectDir);
    expect(await readFile(join(dir, "NOTES.md"), "utf8")).toContain("release notes need a tidy-up");
    expect(existsSync(join(dir, "build", "old-bundle.js"))).toBe(true);

    await mkdir(dirname(SCREENSHOT), { recursive: true });
    // Tall enough for the whole conversation above the sticky composer.
    await page.setViewportSize({ width: 1000, height: 1500 });
    await page.screenshot({ path: SCREENSHOT });
    expect(existsSync(SCREENSHOT)).toBe(true);
    await page.close();
  });

  it("a second task after a reload works in its own folder and shows the same two approvals and the same final text", async (ctx) => {
    if (!hasChromium) return ctx.skip(SKIP_REASON);
    const before = chat!.taskDirs.length;
    const page = await context!.newPage();
    await tellStory(page, "Write down that the changelog needs dates.");
    expect(chat!.taskDirs.length).toBe(before + 1);
    const dir = chat!.taskDirs.at(-1)!;
    expect(await readFile(join(dir, "NOTES.md"), "utf8")).toContain("changelog needs dates");
    await page.close();
  });

  it("a page on another origin cannot start a run or answer an approval: its no-cors POSTs are refused and the bridge holds no new run", async (ctx) => {
    if (!hasChromium) return ctx.skip(SKIP_REASON);
    const attacker: Server = createServer((_req, res) => {
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      res.end("<!doctype html><title>elsewhere</title><p>another site</p>");
    });
    await new Promise<void>((done) => attacker.listen(0, "127.0.0.1", done));
    try {
      const page = await context!.newPage();
      await page.goto(`http://127.0.0.1:${(attacker.address() as AddressInfo).port}/`);
      const held = chat!.bridge.size;
      const target = new URL("api/", chat!.url).href;
      const statuses: number[] = [];
      page.on("response", (response) => {
        if (response.url().startsWith(target)) statuses.push(response.status());
      });
      const outcomes = await page.evaluate(async (api) => {
        const body = JSON.stringify({ prompt: "Write down that this page owns you." });
        const attempts: [string, RequestInit][] = [
          ["runs", { method: "POST", mode: "no-cors", body: new Blob([body]) }],
          ["runs", { method: "POST", mode: "no-cors", headers: { "content-type": "text/plain" }, body }],
          ["approvals/some-id", { method: "POST", mode: "no-cors", body: new Blob([JSON.stringify({ decision: "approve" })]) }],
          ["runs", { method: "POST", headers: { "content-type": "application/json" }, body }],
        ];
        const seen: string[] = [];
        for (const [path, init] of attempts) {
          try {
            const response = await fetch(api + path, init);
            seen.push(response.type);
          } catch (error) {
            seen.push(`refused: ${(error as Error).name}`);
          }
        }
        return seen;
      }, target);
      // The three simple requests reach the bridge (opaque answers); the JSON one fails its preflight.
      expect(outcomes).toEqual(["opaque", "opaque", "opaque", "refused: TypeError"]);
      expect(statuses).toEqual([403, 403, 403]);
      expect(chat!.bridge.size).toBe(held);
      await page.close();
    } finally {
      attacker.closeAllConnections();
      await new Promise<void>((done) => attacker.close(() => done()));
    }
  });

  it("DNS rebinding: a page on evil.example resolving to 127.0.0.1 is refused (403 forbidden_host), so it starts no run and no CLI", async (ctx) => {
    if (!hasChromium) return ctx.skip(SKIP_REASON);
    const evil = `http://evil.example:${new URL(chat!.url).port}/`;
    const page = await context!.newPage();
    // The chat itself refuses to serve its page under the attacker's name.
    const direct = await page.goto(evil);
    expect(direct?.status()).toBe(403);
    expect(await direct?.text()).toContain('host "evil.example:');
    // That document has the attacker's origin (http://evil.example:<port>) and came from 127.0.0.1,
    // as a rebound page's requests do; its scripts now call the chat as their own origin
    // (same-origin: no preflight, Origin = Host). A page Chromium fetched from a public address
    // would also meet Chromium's own private-network guard, which other browsers lack.
    const heldRuns = chat!.bridge.size;
    const tasks = chat!.taskDirs.length;
    const outcomes = await page.evaluate(async () => {
      const json = { "content-type": "application/json" };
      const attempts: [string, RequestInit][] = [
        ["/api/runs", { method: "POST", headers: json, body: JSON.stringify({ prompt: "Write down that this page owns you." }) }],
        ["/api/approvals/some-id", { method: "POST", headers: json, body: JSON.stringify({ decision: "approve" }) }],
        ["/api/runs/some-run/events", { method: "GET" }],
      ];
      const seen: string[] = [];
      for (const [path, init] of attempts) {
        try {
          const response = await fetch(path, init);
          if (!String(response.headers.get("content-type")).startsWith("application/json")) {
            seen.push(`${response.status} ${String(response.headers.get("content-type"))}`);
            void response.body?.cancel();
            continue;
          }
          const body = (await response.json()) as { error?: { code?: string } };
          seen.push(`${response.status} ${String(body.error?.code)}`);
        } catch (error) {
          seen.push(`refused: ${(error as Error).name}`);
        }
      }
      return seen;
    });
    expect(outcomes).toEqual(["403 forbidden_host", "403 forbidden_host", "403 forbidden_host"]);
    expect(chat!.bridge.size).toBe(heldRuns);
    expect(chat!.taskDirs.length).toBe(tasks);
    await page.close();
  });
});

/** Types `task` into a fresh web chat page, approves the Write, denies the Bash call and checks the final text. */
async function tellStory(page: Page, task: string): Promise<void> {
  await page.goto(chat!.url);
  await page.getByLabel("Task").fill(task);
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
}

/** Waits until `locator`'s text is `text` (the page updates after the answer's POST returns). */
async function expectText(locator: import("playwright-core").Locator, text: string): Promise<void> {
  await locator.filter({ hasText: new RegExp(`^${text}$`) }).waitFor({ timeout: 60_000 });
}
