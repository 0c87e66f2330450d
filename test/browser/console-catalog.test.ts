/**
 * The console's catalogue screens in a real browser (contract §15), through the page objects of
 * console/catalog.page.ts: the category tree by keyboard alone (create, rename, move under another
 * parent, reorder, a delete refused by the service and one allowed) and by mouse; synonym groups
 * created, edited and deleted, and a tried query narrowed by a facet; an import whose dry run names
 * the bad row and column, its errors file, a good file run for real to the end; an export with the
 * list's filters. Each state passes axe-core (WCAG 2.1 A/AA) at 1440 px, the tree also at 375 px; one
 * check in Chinese. One server and one signed-in page for the file. Screenshots:
 * test-results/browser/console-catalog-*.png.
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loginAsAdmin } from '../helpers/accounts.ts';
import { launchChromium, type PageWatch, screenshot, watchPage } from '../helpers/browser.ts';
import { skipBrowserTests } from '../helpers/browser-availability.ts';
import { startTestApp, TEST_ADMIN, type TestApp } from '../helpers/test-app.ts';
import { CategoriesPage, downloadOf, ImportPage, isFocused, SearchPage, tabTo } from './console/catalog.page.ts';
import { ConsoleFrame, expectAccessible, SignInPage } from './console/pages.ts';

let app: TestApp;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let watch: PageWatch;
let ownerToken: string;

const AT_1440 = [1440] as const;

async function gql(query: string, variables: Record<string, unknown> = {}) {
  const res = await app.graphql(query, variables, { token: ownerToken });
  expect(res.body.errors, res.text).toBeUndefined();
  return res.body.data;
}

/** How many items (any state) the category of this name holds, as the service counts them. */
async function itemsUnder(name: string): Promise<number> {
  const { categories } = await gql('{ categories { id name } }');
  const id = (categories as Array<{ id: number; name: string }>).find((c) => c.name === name)!.id;
  return (await gql('query($id: Int) { adminItems(categoryId: $id, limit: 1) { total } }', { id })).adminItems.total;
}

/** What the storefront's search finds for `keyword`: its total, and how many of those are in Running. */
async function storefront(keyword: string): Promise<{ total: number; inRunning: number }> {
  const { items } = await gql(
    'query($k: String) { items(keyword: $k, limit: 1) { total facets { categories { name count } } } }',
    { k: keyword },
  );
  const running = (items.facets.categories as Array<{ name: string; count: number }>).find((c) => c.name === 'Running');
  return { total: items.total, inRunning: running?.count ?? 0 };
}

/** The service's own view of the tree: each category's name with its parent's name, by sort order. */
async function serviceChildren(parent: string | null): Promise<string[]> {
  const { categories } = await gql('{ categories { id name parentId sortOrder } }');
  type Row = { id: number; name: string; parentId: number | null };
  const rows = categories as Row[];
  const parentId = parent === null ? null : rows.find((c) => c.name === parent)!.id;
  return rows.filter((c) => c.parentId === parentId).map((c) => c.name);
}

describe.skipIf(skipBrowserTests())('the console’s catalogue screens in a browser', { timeout: 120_000 }, () => {
  beforeAll(async () => {
    browser = await launchChromium();
    // The demo catalogue: 14 categories in a tree and its items (counts read from the service where they matter).
    app = await startTestApp({ SEED_DEMO: 'true' });
    ownerToken = await loginAsAdmin(app);
    context = await browser.newContext({ viewport: { width: 1440, height: 900 }, locale: 'en-US' });
    page = await context.newPage();
    watch = watchPage(page);
    await page.goto(`${app.url}/admin/categories`);
    await new SignInPage(page).signInAs(TEST_ADMIN.username, TEST_ADMIN.password);
  });
  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await app?.close();
  });

  it('when an owner works the category tree by keyboard alone, then each write lands where it was asked and is said', async () => {
    const tree = new CategoriesPage(page);
    await tree.expectLoaded();
    expect(await tree.tree.getAttribute('aria-describedby')).toBeTruthy();
    expect(await tree.childNames()).toEqual(['Shoes', 'Clothing', 'Outdoor gear', '电子产品']);
    expect(await tree.item('Shoes').getAttribute('aria-level')).toBe('1');
    expect(await tree.item('Running').getAttribute('aria-level')).toBe('2');
    await expectAccessible(page, 'the category tree');
    // One tab stop: Tab from the heading reaches the first row; the other rows are out of the Tab order.
    await tabTo(page, tree.item('Shoes'));
    expect(await tree.tree.locator('[role="treeitem"][tabindex="0"]').count()).toBe(1);

    // Arrows: ↓ to Running, ← to its parent, ← closes Shoes, → opens it, End is the last row.
    await page.keyboard.press('ArrowDown');
    expect(await tree.focusedName()).toBe('Running');
    await page.keyboard.press('ArrowLeft');
    expect(await tree.focusedName()).toBe('Shoes');
    await page.keyboard.press('ArrowLeft');
    expect(await tree.item('Shoes').getAttribute('aria-expanded')).toBe('false');
    expect(await tree.item('Running').count()).toBe(0);
    await page.keyboard.press('ArrowRight');
    expect(await tree.item('Shoes').getAttribute('aria-expanded')).toBe('true');
    await page.keyboard.press('End');
    expect(await tree.focusedName()).toBe('Headlamps');

    // Create at the top level: the button, a name, Enter.
    await tabTo(page, tree.newTopLevel, { back: true });
    await page.keyboard.press('Enter');
    await expect.poll(() => isFocused(tree.name)).toBe(true);
    await page.keyboard.type('Kitchen');
    await page.keyboard.press('Enter');
    await tree.expectStatus('Kitchen created.');
    await expect.poll(() => tree.focusedName()).toBe('Kitchen');
    expect(await tree.childNames()).toEqual(['Shoes', 'Clothing', 'Outdoor gear', '电子产品', 'Kitchen']);

    // Two sub-categories under the focused one (Insert), then Pans up above Knives (Alt+↑).
    await page.keyboard.press('Insert');
    await expect.poll(() => tree.dialog.getByRole('heading').innerText()).toBe('New category under Kitchen');
    await page.keyboard.type('Knives');
    await page.keyboard.press('Enter');
    await tree.expectStatus('Knives created.');
    await expect.poll(() => tree.focusedName()).toBe('Knives');
    await page.keyboard.press('ArrowLeft');
    expect(await tree.focusedName()).toBe('Kitchen');
    await page.keyboard.press('Insert');
    await page.keyboard.type('Pans');
    await page.keyboard.press('Enter');
    await tree.expectStatus('Pans created.');
    expect(await tree.childNames('Kitchen')).toEqual(['Knives', 'Pans']);
    expect(await tree.item('Pans').getAttribute('aria-posinset')).toBe('2');
    await page.keyboard.press('Alt+ArrowUp');
    await tree.expectStatus('Pans moved up: 1 of 2.');
    await expect.poll(() => tree.childNames('Kitchen')).toEqual(['Pans', 'Knives']);
    await expect.poll(() => tree.focusedName()).toBe('Pans');
    expect(await serviceChildren('Kitchen')).toEqual(['Pans', 'Knives']);
    await page.keyboard.press('Alt+ArrowUp');
    await tree.expectStatus('Pans is already first.');

    // Rename: Enter opens the name, prefilled.
    await page.keyboard.press('Enter');
    await expect.poll(() => tree.name.inputValue()).toBe('Pans');
    await expectAccessible(page, 'the rename dialog', AT_1440);
    await page.keyboard.press('ControlOrMeta+A');
    await page.keyboard.type('Pots and pans');
    await page.keyboard.press('Enter');
    await tree.expectStatus('Renamed to Pots and pans.');
    await expect.poll(() => tree.focusedName()).toBe('Pots and pans');

    // Move Knives under Outdoor gear › Cooking: "Move to…", the parent picked with arrow keys, the Move button.
    await page.keyboard.press('ArrowDown');
    expect(await tree.focusedName()).toBe('Knives');
    await tabTo(page, tree.moveTo);
    await page.keyboard.press('Enter');
    const parent = tree.newParent;
    await expect.poll(() => isFocused(parent)).toBe(true);
    // The category itself is no choice (nor anything below it).
    expect(await parent.locator('option').allInnerTexts()).not.toContain('Kitchen › Knives');
    // The current parent (Kitchen) is chosen; ↑ walks back through the tree order to the new one.
    const chosen = () => parent.evaluate((select: HTMLSelectElement) => select.selectedOptions[0]?.text);
    expect(await chosen()).toBe('Kitchen');
    for (let i = 0; i < 30 && (await chosen()) !== 'Outdoor gear › Cooking'; i++) await page.keyboard.press('ArrowUp');
    expect(await chosen()).toBe('Outdoor gear › Cooking');
    await expectAccessible(page, 'the move dialog', AT_1440);
    await tabTo(page, tree.dialog.getByRole('button', { name: 'Move', exact: true }));
    await page.keyboard.press('Enter');
    await tree.expectStatus('Knives moved under Outdoor gear › Cooking.');
    await expect.poll(() => tree.focusedName()).toBe('Knives');
    expect(await tree.item('Knives').getAttribute('aria-level')).toBe('3');
    expect(await tree.childNames('Cooking')).toEqual(['Knives']);
    expect(await serviceChildren('Cooking')).toEqual(['Knives']);

    // Delete: Running holds items, so the service refuses and says why; Knives is empty and goes.
    await tree.arrowTo('Running');
    await page.keyboard.press('Delete');
    await expect.poll(() => tree.dialog.getByRole('heading').innerText()).toBe('Delete Running?');
    await tabTo(page, tree.dialog.getByRole('button', { name: 'Delete', exact: true }));
    await page.keyboard.press('Enter');
    const inRunning = await itemsUnder('Running');
    await expect
      .poll(() => tree.dialog.getByRole('alert').innerText())
      .toBe(`Not deleted: Running is still used by ${inRunning} item(s).`);
    await expectAccessible(page, 'a refused delete', AT_1440);
    await page.keyboard.press('Escape');
    await expect.poll(() => tree.focusedName()).toBe('Running');
    expect(await serviceChildren('Shoes')).toEqual(['Running', 'Boots']);

    await tree.arrowTo('Knives');
    await page.keyboard.press('Delete');
    await tabTo(page, tree.dialog.getByRole('button', { name: 'Delete', exact: true }));
    await page.keyboard.press('Enter');
    await tree.expectStatus('Knives deleted.');
    expect(await tree.item('Knives').count()).toBe(0);
    // Focus goes to what was next to it, else its parent.
    await expect.poll(() => tree.focusedName()).toBe('Cooking');
    expect(await serviceChildren('Cooking')).toEqual([]);
    await screenshot(page, 'console-catalog-categories');

    // At 375 px the tree and its actions still fit and work.
    await page.setViewportSize({ width: 375, height: 800 });
    await page.keyboard.press('Home');
    expect(await tree.focusedName()).toBe('Shoes');
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
    await screenshot(page, 'console-catalog-categories-375');
    await page.setViewportSize({ width: 1440, height: 900 });
    watch.expectClean();
  });

  it('when an owner uses the mouse, then a click selects a row and the buttons rename, reorder, move and delete it', async () => {
    const tree = new CategoriesPage(page);
    await tree.expectLoaded();
    await tree.item('Kitchen').locator('.tree-name').first().click();
    await tree.newSub.click();
    await tree.name.fill('Cups');
    await tree.dialog.getByRole('button', { name: 'Create' }).click();
    await tree.expectStatus('Cups created.');
    expect(await tree.childNames('Kitchen')).toEqual(['Pots and pans', 'Cups']);

    await tree.moveUp.click();
    await tree.expectStatus('Cups moved up: 1 of 2.');
    await expect.poll(() => tree.childNames('Kitchen')).toEqual(['Cups', 'Pots and pans']);
    await tree.moveDown.click();
    await tree.expectStatus('Cups moved down: 2 of 2.');
    await expect.poll(() => tree.childNames('Kitchen')).toEqual(['Pots and pans', 'Cups']);
    expect(await serviceChildren('Kitchen')).toEqual(['Pots and pans', 'Cups']);

    await tree.rename.click();
    await tree.name.fill('Mugs');
    await tree.dialog.getByRole('button', { name: 'Rename' }).click();
    await tree.expectStatus('Renamed to Mugs.');

    await tree.moveTo.click();
    await tree.newParent.selectOption({ label: '(Top level)' });
    await tree.dialog.getByRole('button', { name: 'Move', exact: true }).click();
    await tree.expectStatus('Mugs moved to the top level.');
    expect(await tree.childNames()).toEqual(['Shoes', 'Clothing', 'Outdoor gear', '电子产品', 'Kitchen', 'Mugs']);

    // The twisty closes and opens a row.
    await tree.item('Kitchen').locator('.twisty').first().click();
    expect(await tree.item('Kitchen').getAttribute('aria-expanded')).toBe('false');
    await tree.item('Kitchen').locator('.twisty').first().click();
    expect(await tree.item('Kitchen').getAttribute('aria-expanded')).toBe('true');

    await tree.item('Mugs').click();
    await tree.delete.click();
    await tree.dialog.getByRole('button', { name: 'Delete', exact: true }).click();
    await tree.expectStatus('Mugs deleted.');
    expect(await serviceChildren(null)).toEqual(['Shoes', 'Clothing', 'Outdoor gear', '电子产品', 'Kitchen']);

    // 中文: the screen's words change; back to English.
    const frame = new ConsoleFrame(page);
    await frame.language.selectOption({ label: '中文' });
    await expect.poll(() => page.getByRole('tree', { name: '分类管理' }).count()).toBe(1);
    expect(await page.getByRole('button', { name: '新建顶级分类' }).count()).toBe(1);
    await page.getByLabel('语言').selectOption({ label: 'English' });
    await tree.expectLoaded();
    watch.expectClean();
  });

  it('when a viewer opens the tree, then it reads and walks it but is offered no write', async () => {
    await gql(
      'mutation { createAdmin(input: { username: "catalog-viewer", password: "viewer-password-123", role: viewer }) { id } }',
    );
    const viewer = await browser.newContext({ viewport: { width: 1440, height: 900 }, locale: 'en-US' });
    const viewerPage = await viewer.newPage();
    await viewerPage.goto(`${app.url}/admin/categories`);
    await new SignInPage(viewerPage).signInAs('catalog-viewer', 'viewer-password-123');
    const tree = new CategoriesPage(viewerPage);
    await tree.expectLoaded();
    expect(await tree.newTopLevel.count()).toBe(0);
    expect(await tree.rename.count()).toBe(0);
    await tree.item('Shoes').focus();
    // Enter opens and closes where there is nothing to write; Delete does nothing.
    await viewerPage.keyboard.press('Enter');
    expect(await tree.item('Shoes').getAttribute('aria-expanded')).toBe('false');
    await viewerPage.keyboard.press('Delete');
    expect(await tree.dialog.count()).toBe(0);
    // The search screen lists groups without write controls.
    await viewerPage.goto(`${app.url}/admin/search`);
    await new SearchPage(viewerPage).expectLoaded();
    expect(await viewerPage.getByRole('button', { name: 'New synonym group' }).count()).toBe(0);
    await viewer.close();
  });

  it('when synonym groups are created, edited and deleted, then a tried query follows them and a facet narrows it', async () => {
    // The demo's own groups (黑色/black, 跑鞋/running shoes …) removed first: the screen starts empty.
    for (const { id } of (await gql('{ synonymGroups { id } }')).synonymGroups as Array<{ id: number }>) {
      await gql('mutation($id: Int!) { deleteSynonymGroup(id: $id) }', { id });
    }
    const running = await storefront('running');
    await page.goto(`${app.url}/admin/search`);
    const search = new SearchPage(page);
    await search.expectLoaded();
    await expect.poll(() => page.getByText('No synonym groups yet.').count()).toBe(1);

    await search.newGroup.click();
    await expect.poll(() => isFocused(search.terms)).toBe(true);
    // One term is not a group: the service's reason shows under the field.
    await search.terms.fill('jogging');
    await search.dialog.getByRole('button', { name: 'Create group' }).click();
    await expect.poll(() => search.terms.getAttribute('aria-invalid')).toBe('true');
    expect(await page.locator('.form-dialog .field-error').innerText()).toMatch(/at least 2/);
    await expectAccessible(page, 'the synonym dialog with a problem', AT_1440);
    await search.terms.fill('Jogging, running');
    await search.dialog.getByRole('button', { name: 'Create group' }).click();
    await expect.poll(() => search.groupTerms()).toEqual([['jogging', 'running']]);

    await page.getByRole('button', { name: 'Edit jogging, running' }).click();
    await expect.poll(() => search.terms.inputValue()).toBe('jogging, running');
    await search.terms.fill('jogging，running, sprinting');
    await search.dialog.getByRole('button', { name: 'Save group' }).click();
    await expect.poll(() => search.groupTerms()).toEqual([['jogging', 'running', 'sprinting']]);

    // "jogging" finds what "running" finds through the group — the Running category's items and the
    // Running singlet — once the catalogue cache has seen the change (within 1 s).
    await search.tryQuery('jogging');
    await expect
      .poll(async () => {
        await search.tryIt.click();
        return search.resultLine.innerText();
      })
      .toBe(`${running.total} results`);
    expect(await search.results.allInnerTexts()).toContain('Running singlet');
    expect(await search.facetCount('Categories', 'Running')).toBe(running.inRunning);
    expect(await search.facetCount('Stock', 'In stock')).toBeLessThanOrEqual(running.total);
    await expectAccessible(page, 'a tried query with its facets', AT_1440);
    await screenshot(page, 'console-catalog-search');

    // Facets filter, and each count is what choosing it gives: the category, then a spec within it.
    await search.facet('Categories', 'Running').click();
    await expect.poll(() => search.resultLine.innerText()).toBe(`${running.inRunning} results`);
    expect(await search.facet('Categories', 'Running').getAttribute('aria-pressed')).toBe('true');
    expect(await search.results.allInnerTexts()).not.toContain('Running singlet');
    const size42 = await search.facetCount('size', '42');
    expect(size42).toBeGreaterThanOrEqual(1);
    await search.facet('size', '42').click();
    await expect.poll(() => search.resultLine.innerText()).toBe(size42 === 1 ? '1 result' : `${size42} results`);
    expect(await search.facet('size', '42').getAttribute('aria-pressed')).toBe('true');
    expect(await search.results.allInnerTexts()).toContain('Trail runner GTX');
    await page.getByRole('button', { name: 'Clear filters' }).click();
    await expect.poll(() => search.resultLine.innerText()).toBe(`${running.total} results`);

    await page.getByRole('button', { name: 'Delete jogging, running, sprinting' }).click();
    await search.dialog.getByRole('button', { name: 'Delete group' }).click();
    await expect.poll(() => page.getByText('No synonym groups yet.').count()).toBe(1);
    const { synonymGroups } = await gql('{ synonymGroups { id } }');
    expect(synonymGroups).toEqual([]);
    await expect
      .poll(async () => {
        await search.tryIt.click();
        return search.resultLine.innerText();
      })
      .toBe('0 results');
    watch.expectClean();
  });

  it('when a file with a bad row is checked, then the dry run names its row and column; a good file runs for real to the end; an export downloads', async () => {
    await page.goto(`${app.url}/admin/import`);
    const importer = new ImportPage(page);
    await importer.expectLoaded();
    expect(await importer.dryRun.isChecked()).toBe(true);
    await expectAccessible(page, 'the import screen');

    // Nothing chosen: said under the field.
    await importer.check.click();
    await expect.poll(() => importer.file.getAttribute('aria-invalid')).toBe('true');

    const bad = [
      'handle,name,category,price,sku_code,spec:color',
      'kettle-one,Kettle one,Kitchen > Pots and pans,25.00,KT-1,red',
      'kettle-two,Kettle two,Kitchen > Pots and pans,not-a-price,KT-2,blue',
      '',
    ].join('\n');
    await importer.choose('kettles.csv', bad);
    await importer.check.click();
    await expect.poll(() => importer.reportStatus.innerText()).toBe('Dry run: Succeeded');
    expect(await importer.progressOf('Dry-run progress')).toEqual({ value: 2, max: 2 });
    expect(await importer.counts()).toEqual({ Created: 1, Updated: 0, Unchanged: 0, Failed: 1 });
    const problems = await importer.problems();
    expect(problems).toHaveLength(1);
    expect(problems[0]!.slice(0, 3)).toEqual(['3', 'price', 'kettle-two']);
    await expectAccessible(page, 'a dry-run report with a problem', AT_1440);
    await screenshot(page, 'console-catalog-dry-run');
    // The dry run wrote nothing.
    expect((await gql('{ adminItem(handle: "kettle-one") { id } }')).adminItem).toBeNull();

    const errors = await downloadOf(page, () => importer.errorsFile.click());
    expect(errors.name).toMatch(/^import-\d+-errors\.csv$/);
    expect(errors.text.split(/\r?\n/).filter(Boolean)).toEqual([
      'handle,name,category,price,sku_code,spec:color,error',
      'kettle-two,Kettle two,Kitchen > Pots and pans,not-a-price,KT-2,blue,price: must be a number or a decimal string',
    ]);

    // A good file: checked, then run for real with the same file; the bar reaches its end.
    const good = [
      'handle,name,category,price,stock,sku_code,spec:color',
      'kettle-one,Kettle one,Kitchen > Pots and pans,25.00,3,KT-1,red',
      'kettle-two,Kettle two,Kitchen > Pots and pans,27.50,4,KT-2,blue',
      'kettle-two,,,,,KT-3,green',
    ].join('\n');
    await importer.choose('kettles-fixed.csv', good);
    await importer.check.click();
    await expect.poll(() => importer.counts()).toEqual({ Created: 2, Updated: 0, Unchanged: 0, Failed: 0 });
    await expect.poll(() => importer.reportStatus.innerText()).toBe('Dry run: Succeeded');
    expect(await importer.errorsFile.count()).toBe(0);
    await importer.runForReal.click();
    await expect.poll(() => importer.reportStatus.innerText()).toBe('Import: Succeeded');
    expect(await importer.progressOf('Import progress')).toEqual({ value: 3, max: 3 });
    expect(await page.getByText('3 of 3 rows').count()).toBe(1);
    expect(await importer.counts()).toEqual({ Created: 2, Updated: 0, Unchanged: 0, Failed: 0 });
    const { adminItem } = await gql('{ adminItem(handle: "kettle-two") { name status skus { skuCode } } }');
    expect(adminItem).toEqual({
      name: 'Kettle two',
      status: 'draft',
      skus: [{ skuCode: 'KT-2' }, { skuCode: 'KT-3' }],
    });
    await expectAccessible(page, 'a finished import', AT_1440);
    // The three runs, newest first, and the one shown is pressed.
    await expect
      .poll(() => importer.recent.locator('tbody tr td:first-child').allInnerTexts())
      .toEqual(['Import 3', 'Dry run 2', 'Dry run 1']);
    expect(await page.getByRole('button', { name: 'Import 3' }).getAttribute('aria-pressed')).toBe('true');
    expect(new URL(page.url()).searchParams.get('import')).toBe('3');

    // The export takes the list's filters from the address (the items list's names) and downloads them.
    await page.goto(`${app.url}/admin/import?keyword=kettle&status=draft`);
    await importer.expectLoaded();
    expect(await importer.exportKeyword.inputValue()).toBe('kettle');
    expect(await importer.exportStatus.inputValue()).toBe('draft');
    // The report of import 3 is gone from the address; the export's filters stay.
    const exported = await downloadOf(page, () => importer.downloadExport.click());
    expect(exported.name).toMatch(/^items-\d{4}-\d{2}-\d{2}\.csv$/);
    const lines = exported.text
      .replace(/^\uFEFF/, '')
      .split(/\r?\n/)
      .filter(Boolean);
    expect(lines[0]).toMatch(/^handle,name,/);
    expect(lines.slice(1).map((l) => l.split(',')[0])).toEqual(['kettle-one', 'kettle-two', 'kettle-two']);
    await importer.exportFormat.selectOption({ label: 'JSON Lines' });
    const jsonl = await downloadOf(page, () => importer.downloadExport.click());
    expect(jsonl.name).toMatch(/\.jsonl$/);
    expect(
      jsonl.text
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l).handle),
    ).toEqual(['kettle-one', 'kettle-two']);
    await expectAccessible(page, 'the export with filters', AT_1440);
    watch.expectClean();
  });
});
