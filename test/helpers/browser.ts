/**
 * A real browser for tests: Debian's Chromium driven by playwright-core (no browser download). Where
 * Chromium is missing the browser tests skip (browser-availability.ts), unless REQUIRE_BROWSER=1 (CI):
 * then launching fails with what to install. The browser can resolve no host name but
 * 127.0.0.1/localhost, so no page reaches the outside network.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { type Browser, chromium, type Locator, type Page } from 'playwright-core';
import { expect } from 'vitest';
import { CHROMIUM } from './browser-availability.ts';
import { ROOT } from './service-process.ts';

/** Screenshots land here (git-ignored; CI keeps them as artefacts). */
export const SCREENSHOT_DIR = join(ROOT, 'test-results', 'browser');

export async function launchChromium(): Promise<Browser> {
  expect(existsSync(CHROMIUM), `${CHROMIUM} is missing: apt-get install -y chromium (.ci/run does)`).toBe(true);
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE localhost, EXCLUDE 127.0.0.1',
    ],
  });
}

export interface PageWatch {
  /** Requests that failed at the network level or were answered with a status >= 400. */
  failed: string[];
  /** Console errors and uncaught exceptions. */
  errors: string[];
  /** Bytes received per URL: encoded body plus headers, as they crossed the wire. */
  transferred: Map<string, number>;
  /** Asserts that nothing failed and nothing was logged as an error. */
  expectClean(): void;
}

/** Records what goes wrong on `page` from now on. */
export function watchPage(page: Page): PageWatch {
  const failed: string[] = [];
  const errors: string[] = [];
  const transferred = new Map<string, number>();
  page.on('requestfailed', (req) => failed.push(`${req.method()} ${req.url()}: ${req.failure()?.errorText}`));
  page.on('requestfinished', async (req) => {
    const sizes = await req.sizes().catch(() => undefined);
    if (sizes) transferred.set(req.url(), sizes.responseBodySize + sizes.responseHeadersSize);
  });
  page.on('response', (res) => {
    if (res.status() >= 400) failed.push(`${res.request().method()} ${res.url()}: ${res.status()}`);
  });
  page.on('console', (msg) => {
    if (msg.type() === 'error') errors.push(`console: ${msg.text()}`);
  });
  page.on('pageerror', (err) => errors.push(`page: ${err.message}`));
  return {
    failed,
    errors,
    transferred,
    expectClean() {
      expect(failed, 'failed requests').toEqual([]);
      expect(errors, 'console errors').toEqual([]);
    },
  };
}

/** Saves a screenshot of `target` (a whole page, or one element) as `<name>.png` in SCREENSHOT_DIR. */
export async function screenshot(target: Page | Locator, name: string): Promise<string> {
  const path = join(SCREENSHOT_DIR, `${name}.png`);
  await ('goto' in target ? target.screenshot({ path, fullPage: true }) : target.screenshot({ path }));
  return path;
}
