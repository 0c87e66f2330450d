/**
 * Page objects of the Team, Audit log and My account screens and of two-factor enrolment (console.md
 * §3): located by role and label as a person or a screen reader finds things.
 */
import type { Locator, Page } from 'playwright-core';
import { expect } from 'vitest';

/** Presses Tab until `target` has the focus (a keyboard-only path), failing after `max` presses. */
export async function tabTo(page: Page, target: Locator, max = 25): Promise<void> {
  for (let i = 0; i < max; i++) {
    if (await target.evaluate((el) => el === document.activeElement)) return;
    await page.keyboard.press('Tab');
  }
  throw new Error(`Tab never reached ${target}`);
}

/** Whether `target` has the focus. */
export const isFocused = (target: Locator) => target.evaluate((el) => el === document.activeElement);

/** The text of the element that describes `field` (its error, by aria-describedby). */
export async function describedBy(page: Page, field: Locator): Promise<string> {
  const id = await field.getAttribute('aria-describedby');
  expect(id, 'aria-describedby').toBeTruthy();
  return page.locator(`[id="${id}"]`).innerText();
}

/** A table's body rows as text, one array of cell texts per row. */
export const tableRows = (table: Locator): Promise<string[][]> =>
  table
    .locator('tbody tr')
    .evaluateAll((rows) =>
      rows.map((row) => [...row.querySelectorAll('th, td')].map((cell) => (cell as HTMLElement).innerText.trim())),
    );

/** One row's cell texts. */
export const rowCells = (row: Locator): Promise<string[]> =>
  row.evaluate((tr) => [...tr.querySelectorAll('th, td')].map((cell) => (cell as HTMLElement).innerText.trim()));

export class TeamPage {
  readonly heading: Locator;
  readonly admins: Locator;
  readonly keys: Locator;
  readonly status: Locator;

  constructor(readonly page: Page) {
    this.heading = page.getByRole('heading', { level: 1, name: 'Team' });
    this.admins = page.locator('table.admins-table');
    this.keys = page.locator('table.api-keys-table');
    this.status = page.locator('.team-section [role="status"].status-line');
  }

  async expectLoaded(): Promise<void> {
    await this.heading.waitFor();
    await this.admins.waitFor();
    await expect.poll(() => this.admins.getAttribute('aria-busy')).toBe('false');
  }

  /** The admin's row: its name is the row header. */
  adminRow(username: string): Locator {
    return this.admins.locator('tbody tr').filter({ has: this.page.getByRole('rowheader', { name: username }) });
  }

  keyRow(name: string): Locator {
    return this.keys.locator('tbody tr').filter({ has: this.page.getByRole('rowheader', { name, exact: true }) });
  }

  async createAdmin(username: string, password: string, role: string): Promise<void> {
    const form = this.page.getByRole('form', { name: 'Add an admin' });
    await form.getByLabel('Username').fill(username);
    await form.getByLabel('Password').fill(password);
    await form.getByLabel('Role').selectOption({ label: role });
    await form.getByRole('button', { name: 'Create the admin' }).click();
  }

  async createKey(name: string, role: string, expiresOn?: string): Promise<void> {
    const form = this.page.getByRole('form', { name: 'Create an API key' });
    await form.getByLabel('Key name').fill(name);
    await form.getByLabel('Key role').selectOption({ label: role });
    if (expiresOn) await form.getByLabel('Expires on (optional)').fill(expiresOn);
    await form.getByRole('button', { name: 'Create the key' }).click();
  }

  /** The open dialog (native <dialog> with showModal: role dialog). */
  dialog(name: string | RegExp): Locator {
    return this.page.getByRole('dialog', { name });
  }
}

export class AuditLogPage {
  readonly heading: Locator;
  readonly action: Locator;
  readonly actorType: Locator;
  readonly targetType: Locator;
  readonly targetId: Locator;
  readonly from: Locator;
  readonly to: Locator;
  readonly apply: Locator;
  readonly entries: Locator;
  readonly resultLine: Locator;

  constructor(readonly page: Page) {
    this.heading = page.getByRole('heading', { level: 1, name: 'Audit log' });
    this.action = page.getByLabel('Action', { exact: true });
    this.actorType = page.getByLabel('Who acted');
    this.targetType = page.getByLabel('Target', { exact: true });
    this.targetId = page.getByLabel('Target id');
    this.from = page.getByLabel('From', { exact: true });
    this.to = page.getByLabel('To', { exact: true });
    this.apply = page.getByRole('button', { name: 'Apply filters' });
    this.entries = page.locator('article.audit-entry');
    this.resultLine = page.locator('.result-line');
  }

  async expectLoaded(): Promise<void> {
    await this.heading.waitFor();
    await expect.poll(() => this.resultLine.innerText()).toMatch(/\d+ entr/);
    await expect.poll(() => this.page.locator('.audit-entries[aria-busy="true"]').count()).toBe(0);
  }

  /** Each entry's title and its changes table as {field, change, before, after} rows. */
  async read(): Promise<Array<{ title: string; changes: Array<Record<string, string>> }>> {
    const out = [];
    for (const entry of await this.entries.all()) {
      const title = (await entry.getByRole('heading', { level: 2 }).innerText()).replace(/\s+/g, ' ');
      const rows = (await entry.locator('table.changes-table').count())
        ? await tableRows(entry.locator('table.changes-table'))
        : [];
      out.push({
        title,
        changes: rows.map(([field, change, before, after]) => ({
          field: field!,
          change: change!.replace(/^[+−~]\s*/, ''),
          before: before!,
          after: after!,
        })),
      });
    }
    return out;
  }
}

export class AccountPage {
  readonly heading: Locator;
  readonly currentPassword: Locator;
  readonly newPassword: Locator;
  readonly changePassword: Locator;
  readonly sessions: Locator;
  readonly twoFactor: Locator;

  constructor(readonly page: Page) {
    this.heading = page.getByRole('heading', { level: 1, name: 'My account' });
    this.currentPassword = page.getByLabel('Current password');
    this.newPassword = page.getByLabel('New password');
    this.changePassword = page.getByRole('button', { name: 'Change password' });
    this.sessions = page.locator('table.sessions-table');
    this.twoFactor = page.getByRole('region', { name: 'Two-factor login' });
  }

  async expectLoaded(): Promise<void> {
    await this.heading.waitFor();
    await this.sessions.waitFor();
    await expect.poll(() => this.sessions.getAttribute('aria-busy')).toBe('false');
  }

  status(section: 'Password' | 'Two-factor login' | 'Sessions'): Locator {
    return this.page.getByRole('region', { name: section }).locator('[role="status"].status-line');
  }
}

/** The two-factor enrolment (ui/totp-enrolment.tsx), wherever it is shown. */
export class EnrolmentPanel {
  readonly scanHeading: Locator;
  readonly qrCode: Locator;
  readonly secret: Locator;
  readonly code: Locator;
  readonly turnOn: Locator;
  readonly codesHeading: Locator;
  readonly recoveryCodes: Locator;
  readonly copyCodes: Locator;
  readonly download: Locator;

  constructor(readonly page: Page) {
    this.scanHeading = page.getByRole('heading', { name: 'Add this account to your authenticator app' });
    this.qrCode = page.getByRole('img', { name: 'QR code that adds this account to an authenticator app' });
    this.secret = page.locator('.totp-secret');
    this.code = page.getByLabel('Code from the app');
    this.turnOn = page.getByRole('button', { name: 'Turn on two-factor login' });
    this.codesHeading = page.getByRole('heading', { name: 'Save your recovery codes' });
    this.recoveryCodes = page.getByRole('list', { name: 'Recovery codes' }).getByRole('listitem');
    this.copyCodes = page.getByRole('button', { name: 'Copy the codes' });
    this.download = page.getByRole('link', { name: 'Download the codes' });
  }

  /** The base32 secret as the page shows it for typing (grouped by four). */
  async secretText(): Promise<string> {
    return (await this.secret.innerText()).replace(/\s/g, '');
  }

  /** The QR code is an image from a data: URL that the browser decoded (the page's CSP allowed it). */
  async expectQrCodeShown(): Promise<void> {
    expect(await this.qrCode.getAttribute('src')).toMatch(/^data:image\/svg\+xml;base64,/);
    await expect
      .poll(() =>
        this.qrCode.evaluate((img) => (img as HTMLImageElement).complete && (img as HTMLImageElement).naturalWidth),
      )
      .toBeGreaterThan(0);
  }
}
