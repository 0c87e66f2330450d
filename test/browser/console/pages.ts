/**
 * Page objects of the admin console (console.md §3): one per screen, locating by role and label as a
 * person (or a screen reader) finds things, and an accessibility check (axe-core, WCAG 2.1 A/AA) that
 * every screen passes at the widths the contract names.
 */
import { createRequire } from 'node:module';
import type { Locator, Page } from 'playwright-core';
import { expect } from 'vitest';

const axeSource = (): string => (createRequire(import.meta.url)('axe-core') as { source: string }).source;

export const WIDTHS = [1440, 375] as const;

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: Array<{ target: string[] }>;
}

/**
 * Runs axe-core on the page as it is, at each width (both the contract names, unless told), and fails
 * on a serious or critical violation.
 * The script is evaluated through the DevTools protocol, which the page's Content-Security-Policy
 * does not govern (a `<script>` tag would be refused, as it should be).
 */
export async function expectAccessible(page: Page, what: string, widths: readonly number[] = WIDTHS): Promise<void> {
  const size = page.viewportSize() ?? { width: 1440, height: 900 };
  for (const width of widths) {
    await page.setViewportSize({ width, height: size.height });
    if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(axeSource());
    const violations = await page.evaluate(async () => {
      type Axe = { run: (ctx: unknown, opts: unknown) => Promise<{ violations: AxeViolation[] }> };
      const { axe } = window as unknown as { axe: Axe };
      const result = await axe.run(document, {
        runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] },
      });
      return result.violations;
    });
    const grave = violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => `${v.id} (${v.impact}): ${v.help} — ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
    expect(grave, `${what} at ${width} px`).toEqual([]);
  }
  await page.setViewportSize(size);
}

export class SignInPage {
  readonly username: Locator;
  readonly password: Locator;
  readonly signIn: Locator;
  readonly code: Locator;
  readonly verify: Locator;
  readonly alert: Locator;

  constructor(readonly page: Page) {
    this.username = page.getByLabel('Username');
    this.password = page.getByLabel('Password');
    this.signIn = page.getByRole('button', { name: 'Sign in' });
    this.code = page.getByLabel('One-time or recovery code');
    this.verify = page.getByRole('button', { name: 'Verify' });
    this.alert = page.getByRole('alert');
  }

  async expectLoaded(): Promise<void> {
    await this.username.waitFor();
    expect(new URL(this.page.url()).pathname).toBe('/admin/login');
  }

  async signInAs(username: string, password: string): Promise<void> {
    await this.expectLoaded();
    await this.username.fill(username);
    await this.password.fill(password);
    await this.signIn.click();
  }
}

export class ConsoleFrame {
  readonly navigation: Locator;
  readonly language: Locator;
  readonly signOut: Locator;
  readonly heading: Locator;

  constructor(readonly page: Page) {
    this.navigation = page.getByRole('navigation', { name: 'Main' });
    this.language = page.getByLabel('Language');
    this.signOut = page.getByRole('button', { name: 'Sign out' });
    this.heading = page.getByRole('heading', { level: 1 });
  }

  /** The navigation's link names, in order (opening the Menu first on a narrow screen). */
  async links(navigation = this.navigation): Promise<string[]> {
    return navigation.getByRole('link').allInnerTexts();
  }
}

export class ItemsPage {
  readonly search: Locator;
  readonly status: Locator;
  readonly table: Locator;
  readonly rows: Locator;
  readonly resultLine: Locator;
  readonly next: Locator;
  readonly previous: Locator;

  constructor(readonly page: Page) {
    this.search = page.getByLabel('Search items');
    this.status = page.getByLabel('Status');
    this.table = page.getByRole('table');
    this.rows = this.table.locator('tbody tr');
    this.resultLine = page.locator('.result-line');
    this.next = page.getByRole('button', { name: 'Next page' });
    this.previous = page.getByRole('button', { name: 'Previous page' });
  }

  async expectLoaded(): Promise<void> {
    await this.table.waitFor();
    await expect.poll(() => this.table.getAttribute('aria-busy')).toBe('false');
  }

  /** The names in the table's rows. */
  names(): Promise<string[]> {
    return this.table.locator('tbody .item-name').allInnerTexts();
  }
}
