/**
 * Page objects of the console's catalogue screens — Categories, Search, Import / export — locating by
 * role and label as a person (or a screen reader) finds things, and a few keyboard helpers: the tests
 * of console-catalog.test.ts reach controls with Tab and arrow keys, not by clicking.
 */
import { readFile } from 'node:fs/promises';
import type { Locator, Page } from 'playwright-core';
import { expect } from 'vitest';

/** Whether `target` has the keyboard focus. */
export const isFocused = (target: Locator): Promise<boolean> => target.evaluate((el) => el === document.activeElement);

/** Presses Tab (Shift+Tab when `back`) until `target` has the focus, as a keyboard user would. */
export async function tabTo(page: Page, target: Locator, { back = false, most = 40 } = {}): Promise<void> {
  for (let i = 0; i < most; i++) {
    if (await isFocused(target)) return;
    await page.keyboard.press(back ? 'Shift+Tab' : 'Tab');
  }
  expect(await isFocused(target), `Tab never reached ${target}`).toBe(true);
}

/** Runs `action` (a click) and answers the text of the file the browser downloads meanwhile, and its name. */
export async function downloadOf(page: Page, action: () => Promise<void>): Promise<{ name: string; text: string }> {
  const [download] = await Promise.all([page.waitForEvent('download'), action()]);
  const path = await download.path();
  return { name: download.suggestedFilename(), text: await readFile(path, 'utf8') };
}

export class CategoriesPage {
  readonly tree: Locator;
  readonly status: Locator;
  readonly newTopLevel: Locator;
  readonly newSub: Locator;
  readonly rename: Locator;
  readonly moveTo: Locator;
  readonly moveUp: Locator;
  readonly moveDown: Locator;
  readonly delete: Locator;
  readonly dialog: Locator;
  /** The name field of the new-category and rename dialogs. */
  readonly name: Locator;
  readonly newParent: Locator;

  constructor(readonly page: Page) {
    this.tree = page.getByRole('tree', { name: 'Categories' });
    this.name = page.getByLabel('Name', { exact: true });
    this.newParent = page.getByLabel('New parent');
    this.status = page.locator('main [role="status"]');
    this.newTopLevel = page.getByRole('button', { name: 'New top-level category' });
    this.newSub = page.getByRole('button', { name: 'New sub-category' });
    this.rename = page.getByRole('button', { name: 'Rename', exact: true });
    this.moveTo = page.getByRole('button', { name: 'Move to…' });
    this.moveUp = page.getByRole('button', { name: 'Move up' });
    this.moveDown = page.getByRole('button', { name: 'Move down' });
    this.delete = page.getByRole('button', { name: 'Delete', exact: true });
    this.dialog = page.getByRole('dialog');
  }

  async expectLoaded(): Promise<void> {
    await this.tree.waitFor();
  }

  /** The row of a category, by its name. */
  item(name: string): Locator {
    return this.tree.getByRole('treeitem', { name, exact: true });
  }

  /** The names of a category's sub-categories (the top level without a parent), in the order shown. */
  async childNames(parent?: string): Promise<string[]> {
    // A row owns its sub-categories' group (`aria-owns`); the group follows the row in the page.
    const group = parent ? await this.item(parent).getAttribute('aria-owns') : null;
    if (parent && !group) return [];
    const scope = group ? this.page.locator(`[id="${group}"]`) : this.tree;
    return scope.locator(':scope > .tree-node > [role="treeitem"] .tree-name').allInnerTexts();
  }

  /** The name of the row that has the keyboard focus ('' when none has). */
  focusedName(): Promise<string> {
    return this.page.evaluate(() => {
      const el = document.activeElement;
      return el?.getAttribute('role') === 'treeitem' ? (el.querySelector('.tree-name')?.textContent ?? '') : '';
    });
  }

  /** Arrow keys (↓ from the top, at most `most` presses) until the row named `name` has the focus. */
  async arrowTo(name: string, most = 30): Promise<void> {
    await this.page.keyboard.press('Home');
    for (let i = 0; i < most && (await this.focusedName()) !== name; i++) await this.page.keyboard.press('ArrowDown');
    expect(await this.focusedName()).toBe(name);
  }

  /** Waits for the status line to say `text` (each write's outcome is said there). */
  async expectStatus(text: string): Promise<void> {
    await expect.poll(() => this.status.innerText()).toBe(text);
  }
}

export class SearchPage {
  readonly newGroup: Locator;
  readonly terms: Locator;
  readonly groups: Locator;
  readonly keyword: Locator;
  readonly tryIt: Locator;
  readonly resultLine: Locator;
  readonly results: Locator;
  readonly facets: Locator;
  readonly dialog: Locator;

  constructor(readonly page: Page) {
    this.newGroup = page.getByRole('button', { name: 'New synonym group' });
    this.terms = page.getByLabel('Terms');
    this.groups = page.getByRole('list', { name: 'Synonym groups' });
    this.keyword = page.getByLabel('Keyword');
    this.tryIt = page.getByRole('button', { name: 'Try it' });
    this.resultLine = page.locator('.trial-results .result-line');
    this.results = page.locator('.result-list .item-name');
    this.facets = page.getByRole('complementary', { name: 'Facets' });
    this.dialog = page.getByRole('dialog');
  }

  async expectLoaded(): Promise<void> {
    await this.keyword.waitFor();
    await this.page.getByRole('heading', { name: 'Synonym groups' }).waitFor();
  }

  /** Each group's terms, as listed. */
  async groupTerms(): Promise<string[][]> {
    const rows = await this.groups.locator(':scope > li').all();
    return Promise.all(rows.map((row) => row.locator('.term').allInnerTexts()));
  }

  /** A facet's button, named by its label and count ("42 (1)"). */
  facet(group: string, label: string): Locator {
    const escaped = label.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    return this.facets
      .getByRole('list', { name: group, exact: true })
      .getByRole('button', { name: new RegExp(`^${escaped} \\(\\d+\\)$`) });
  }

  /** The count a facet shows. */
  async facetCount(group: string, label: string): Promise<number> {
    return Number((await this.facet(group, label).locator('.facet-count').innerText()).replace(/\D/g, ''));
  }

  async tryQuery(keyword: string): Promise<void> {
    await this.keyword.fill(keyword);
    await this.tryIt.click();
  }
}

export class ImportPage {
  readonly file: Locator;
  readonly dryRun: Locator;
  readonly check: Locator;
  readonly importFile: Locator;
  readonly report: Locator;
  readonly reportStatus: Locator;
  readonly errorsFile: Locator;
  readonly runForReal: Locator;
  readonly recent: Locator;
  readonly exportKeyword: Locator;
  readonly exportStatus: Locator;
  readonly exportFormat: Locator;
  readonly downloadExport: Locator;

  constructor(readonly page: Page) {
    this.file = page.getByLabel('File (CSV or JSON Lines)');
    this.dryRun = page.getByLabel('Dry run: check the file and count, write nothing');
    this.check = page.getByRole('button', { name: 'Check the file' });
    this.importFile = page.getByRole('button', { name: 'Import the file' });
    this.report = page.locator('.import-report');
    this.reportStatus = this.report.getByRole('status');
    this.errorsFile = page.getByRole('button', { name: 'Download the errors file' });
    this.runForReal = page.getByRole('button', { name: 'Run it for real' });
    this.recent = page.getByRole('table').filter({ has: page.getByRole('columnheader', { name: 'Started' }) });
    this.exportKeyword = page.getByLabel('Keyword');
    this.exportStatus = page.getByLabel('Status');
    this.exportFormat = page.getByLabel('Export format');
    this.downloadExport = page.getByRole('button', { name: 'Download the export' });
  }

  async expectLoaded(): Promise<void> {
    await this.file.waitFor();
  }

  /** Where the progress bar of the import shown stands, found by its accessible name. */
  progressOf(name: 'Dry-run progress' | 'Import progress'): Promise<{ value: number; max: number }> {
    return this.page
      .getByRole('progressbar', { name })
      .evaluate((bar: HTMLProgressElement) => ({ value: bar.value, max: bar.max }));
  }

  /** The report's counts: created, updated, unchanged, failed. */
  async counts(): Promise<Record<string, number>> {
    const terms = await this.report.locator('.counts dt').allInnerTexts();
    const values = await this.report.locator('.counts dd').allInnerTexts();
    return Object.fromEntries(terms.map((term, i) => [term, Number(values[i])]));
  }

  /** The problems table: [row, column, handle, problem] per line. */
  async problems(): Promise<string[][]> {
    const rows = await this.report.locator('tbody tr').all();
    return Promise.all(rows.map((row) => row.locator('td').allInnerTexts()));
  }

  async choose(name: string, content: string, mimeType = 'text/csv'): Promise<void> {
    await this.file.setInputFiles({ name, mimeType, buffer: Buffer.from(content, 'utf8') });
  }
}
