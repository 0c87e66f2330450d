/**
 * The items screens in a real browser (contract §15), through the page objects of
 * console/items.page.ts: the list's filters kept in the URL; bulk status change and bulk delete,
 * each confirmed (Cancel changes nothing, confirming changes exactly the selected rows); an item made
 * in the editor by keyboard alone with a generated SKU table, then edited; a version conflict
 * (Overwrite and Reload); field problems under their fields; a read-only editor for a viewer; the
 * editor at 375 px; and a run in Chinese, in dark mode. axe-core on every state (console/pages.ts).
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loginAsAdmin } from '../helpers/accounts.ts';
import { launchChromium, screenshot, watchPage } from '../helpers/browser.ts';
import { skipBrowserTests } from '../helpers/browser-availability.ts';
import { startTestApp, TEST_ADMIN, type TestApp } from '../helpers/test-app.ts';
import { EN, ItemEditorPage, ItemListPage, ZH } from './console/items.page.ts';
import { expectAccessible, SignInPage } from './console/pages.ts';

let app: TestApp;
let browser: Browser;
let ownerToken: string;
let running: { id: number; name: string };

const VIEWER = { username: 'items-viewer', password: 'viewer-password-123' };
const MANAGER = { username: 'items-manager', password: 'manager-password-123' };
// The schedule's datetime-local inputs are read in the admin's time zone: 08:00 in Shanghai is 00:00 UTC.
const TIME_ZONE = 'Asia/Shanghai';

const ITEM_FIELDS = `id name description categoryId price stock status publishAt unpublishAt handle version
  skus { skuCode specs price stock } images { url sortOrder }`;

async function gql(query: string, variables: Record<string, unknown> = {}, token = ownerToken) {
  const res = await app.graphql(query, variables, { token });
  expect(res.body.errors, res.text).toBeUndefined();
  return res.body.data;
}

const adminItem = async (id: number) =>
  (await gql(`query ($id: Int!) { adminItem(id: $id) { ${ITEM_FIELDS} } }`, { id })).adminItem;

async function makeItem(name: string, extra: Record<string, unknown> = {}) {
  const { createItem } = await gql(
    `mutation ($input: CreateItemInput!) { createItem(input: $input) { id name handle version } }`,
    { input: { name, categoryId: running.id, price: '10.00', stock: 3, skus: [], images: [], ...extra } },
  );
  return createItem as { id: number; name: string; handle: string; version: number };
}

/** A signed-in page in a fresh profile (its own storage), in `locale`, in Shanghai time, light unless told. */
async function signedIn(
  who: { username: string; password: string },
  path: string,
  locale = 'en-US',
  colorScheme: 'light' | 'dark' = 'light',
): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({
    viewport: { width: 1440, height: 900 },
    locale,
    timezoneId: TIME_ZONE,
    colorScheme,
  });
  const page = await context.newPage();
  await page.goto(`${app.url}/admin${path}`);
  if (locale.startsWith('zh')) {
    // The sign-in page speaks the browser's language.
    await page.getByLabel('用户名').fill(who.username);
    await page.getByLabel('密码').fill(who.password);
    await page.getByRole('button', { name: '登录' }).click();
  } else {
    await new SignInPage(page).signInAs(who.username, who.password);
  }
  return { context, page };
}

describe.skipIf(skipBrowserTests())('the items screens in a browser', { timeout: 180_000 }, () => {
  beforeAll(async () => {
    browser = await launchChromium();
    app = await startTestApp({ SEED_DEMO: 'true', LOGIN_IP_PER_MINUTE: '1000' });
    ownerToken = await loginAsAdmin(app);
    for (const [who, role] of [
      [VIEWER, 'viewer'],
      [MANAGER, 'catalog_manager'],
    ] as const) {
      await gql(
        'mutation ($u: String!, $p: String!, $r: AdminRole) { createAdmin(input: { username: $u, password: $p, role: $r }) { id } }',
        { u: who.username, p: who.password, r: role },
      );
    }
    const { categories } = await gql('{ categories { id name } }');
    running = categories.find((c: { name: string }) => c.name === 'Running');
  });
  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });

  it('when an owner filters the list and changes or deletes selected items, then the URL keeps the filters and exactly the confirmed rows change', async () => {
    const { context, page } = await signedIn(TEST_ADMIN, '/items');
    const watch = watchPage(page);
    const list = new ItemListPage(page);
    await list.expectLoaded();

    // Filters: category (by its path), in stock, a price range in yuan — all in the URL.
    await list.field(EN.category).selectOption({ label: 'Shoes › Running' });
    await list.field(EN.inStock).check();
    await list.field(EN.minPrice).fill('30');
    await list.field(EN.maxPrice).fill('500');
    await list.field(EN.maxPrice).press('Enter');
    await expect.poll(() => new URL(page.url()).searchParams.get('maxPrice')).toBe('500');
    const params = new URL(page.url()).searchParams;
    expect([params.get('categoryId'), params.get('inStock'), params.get('minPrice')]).toEqual([
      String(running.id),
      'true',
      '30',
    ]);
    const { adminItems } = await gql(
      '{ adminItems(categoryId: ID_, inStock: true, minPrice: 30, maxPrice: 500, limit: 100) { items { name } total } }'.replace(
        'ID_',
        String(running.id),
      ),
    );
    expect(adminItems.total).toBeGreaterThan(0);
    await list.expectLoaded();
    await expect.poll(() => list.names()).toEqual(adminItems.items.map((i: { name: string }) => i.name));
    await expectAccessible(page, 'the items list, filtered');
    // A reload (or a shared link) shows the same filters.
    await page.reload();
    await list.expectLoaded();
    expect(await list.field(EN.minPrice).inputValue()).toBe('30');
    expect(await list.field(EN.inStock).isChecked()).toBe(true);
    // A minimum above the maximum: the service's problem under the field.
    await list.field(EN.minPrice).fill('600');
    await list.field(EN.minPrice).press('Enter');
    await expect.poll(() => list.field(EN.minPrice).getAttribute('aria-invalid')).toBe('true');

    // Bulk status: three items of our own, two of them selected.
    const made = [await makeItem('批量 A'), await makeItem('批量 B'), await makeItem('批量 C')];
    await page.goto(`${app.url}/admin/items?keyword=${encodeURIComponent('批量')}`);
    await list.expectLoaded();
    await expect.poll(() => list.names().then((n) => n.sort())).toEqual(['批量 A', '批量 B', '批量 C']);
    await list.select('批量 A', '批量 C');
    await list.field(EN.newStatus).selectOption({ label: 'Archived' });
    await list.button(EN.setStatus).click();
    expect(await list.dialogTitle()).toBe('Set the status of 2 items to Archived?');
    await expectAccessible(page, 'the bulk status confirmation');
    await list.dialogButton(EN.cancel).click();
    await expect.poll(() => list.dialog.isVisible()).toBe(false);
    for (const item of made) expect((await adminItem(item.id)).status).toBe('active');

    await list.button(EN.setStatus).click();
    await list.dialogButton('Set status of 2 items').click();
    await expect.poll(() => list.status.innerText()).toBe('Changed the status of 2 items.');
    expect(await Promise.all(made.map(async (item) => (await adminItem(item.id)).status))).toEqual([
      'archived',
      'active',
      'archived',
    ]);
    // The list shows it too (its queries were refreshed), and the selection is gone.
    await expect.poll(() => page.locator('.badge.status-archived').count()).toBe(2);
    expect(await page.getByRole('region', { name: 'Selected items' }).count()).toBe(0);

    // Bulk delete: the whole page selected, then one unticked.
    await page.getByRole('checkbox', { name: EN.selectAll }).check();
    await page.getByRole('checkbox', { name: EN.select('批量 B') }).uncheck();
    expect(
      await page.getByRole('checkbox', { name: EN.selectAll }).evaluate((el) => (el as HTMLInputElement).indeterminate),
    ).toBe(true);
    await list.button(EN.deleteSelected).click();
    expect(await list.dialogTitle()).toBe('Delete 2 items?');
    await expectAccessible(page, 'the bulk delete confirmation');
    await screenshot(page, 'console-items-bulk-delete');
    await page.keyboard.press('Escape');
    await expect.poll(() => list.dialog.isVisible()).toBe(false);
    for (const item of made) expect(await adminItem(item.id)).not.toBeNull();

    await list.button(EN.deleteSelected).click();
    await list.dialogButton('Delete 2 items').click();
    await expect.poll(() => list.status.innerText()).toBe('Deleted 2 items.');
    expect(await adminItem(made[0]!.id)).toBeNull();
    expect(await adminItem(made[2]!.id)).toBeNull();
    expect((await adminItem(made[1]!.id)).name).toBe('批量 B');
    await expect.poll(() => list.names()).toEqual(['批量 B']);
    await expectAccessible(page, 'the list after a bulk delete');
    // The service refused one thing on purpose: the minimum above the maximum.
    expect(watch.errors).toEqual([]);
    await context.close();
  });

  it('when an item is made by keyboard alone, then the generated SKUs, the filled prices and the reordered images are saved', async () => {
    const { context, page } = await signedIn(TEST_ADMIN, '/items');
    const watch = watchPage(page);
    const list = new ItemListPage(page);
    await list.expectLoaded();
    const editor = new ItemEditorPage(page);
    const { keyboard } = page;
    // From the list: the New item action, by keyboard.
    await editor.tabTo(EN.newItem);
    await keyboard.press('Enter');
    await editor.expectLoaded();
    expect(await editor.heading.innerText()).toBe('New item');
    await expectAccessible(page, 'a new item');

    await editor.tabTo(EN.name);
    await keyboard.type('Keyboard boot');
    await editor.tabTo(EN.category);
    // A closed <select> by keyboard: type-ahead to "Shoes", then the arrow to the next option (its first child).
    await keyboard.type('Shoes');
    await keyboard.press('ArrowDown');
    expect(await editor.field(EN.category).inputValue()).toBe(String(running.id));
    await editor.tabTo(EN.price);
    await keyboard.type('199');
    await editor.tabTo(EN.stock);
    await keyboard.press('Backspace');
    await keyboard.type('12');

    // Two images; the second moved up by Enter; the focus stays with the moved image.
    await editor.tabTo(EN.addImage);
    await keyboard.press('Enter');
    await expect.poll(() => editor.focusedName()).toBe(EN.imageUrl(1));
    await keyboard.type('https://cdn.example.com/a.jpg');
    await editor.tabTo(EN.addImage);
    await keyboard.press('Space');
    await expect.poll(() => editor.focusedName()).toBe(EN.imageUrl(2));
    await keyboard.type('https://cdn.example.com/b.jpg');
    await editor.tabTo(EN.moveUp(2));
    await keyboard.press('Enter');
    await expect
      .poll(() => editor.imageUrls())
      .toEqual(['https://cdn.example.com/b.jpg', 'https://cdn.example.com/a.jpg']);
    // At the top "Move up" is disabled: the focus is on the same image's other button.
    expect(await editor.focusedName()).toBe(EN.moveDown(1));

    // Specs: 颜色 × 尺码 → 6 SKUs.
    await editor.tabTo(EN.specName(1));
    await keyboard.type('颜色');
    await keyboard.press('Tab');
    await keyboard.type('黑, 白');
    await editor.tabTo(EN.addSpec);
    await keyboard.press('Space');
    await editor.tabTo(EN.specName(2));
    await keyboard.type('尺码');
    await keyboard.press('Tab');
    await keyboard.type('40，41、42');
    await editor.tabTo(EN.generate);
    await keyboard.press('Enter');
    await expect.poll(() => editor.skuRows.count()).toBe(6);
    expect(await editor.skuSpecs()).toEqual(['黑/40', '黑/41', '黑/42', '白/40', '白/41', '白/42']);

    // Price and stock for every row at once, then one row by itself.
    await editor.tabTo(EN.fillPrice);
    await keyboard.type('219.5');
    await keyboard.press('Tab');
    await keyboard.type('5');
    await editor.tabTo(EN.selectAllSkus);
    await keyboard.press('Space');
    await editor.tabTo(EN.fill, { back: true });
    await keyboard.press('Enter');
    await expect.poll(() => editor.field(EN.skuPrice(6)).inputValue()).toBe('219.5');
    await editor.tabTo(EN.skuStock(4));
    await keyboard.press('Backspace');
    await keyboard.type('9');
    await expectAccessible(page, 'a new item with generated SKUs');

    await editor.tabTo(EN.create);
    await keyboard.press('Enter');
    await expect.poll(() => new URL(page.url()).pathname).toMatch(/^\/admin\/items\/\d+$/);
    const id = Number(new URL(page.url()).pathname.split('/').at(-1));
    const item = await adminItem(id);
    expect(item).toMatchObject({
      name: 'Keyboard boot',
      description: '',
      categoryId: running.id,
      price: 199,
      stock: 12,
      status: 'draft',
      handle: 'keyboard-boot',
      images: [
        { url: 'https://cdn.example.com/b.jpg', sortOrder: 0 },
        { url: 'https://cdn.example.com/a.jpg', sortOrder: 1 },
      ],
    });
    expect(
      item.skus.map((s: { specs: Record<string, string>; price: number; stock: number }) => [
        s.specs,
        s.price,
        s.stock,
      ]),
    ).toEqual([
      [{ 颜色: '黑', 尺码: '40' }, 219.5, 5],
      [{ 颜色: '黑', 尺码: '41' }, 219.5, 5],
      [{ 颜色: '黑', 尺码: '42' }, 219.5, 5],
      [{ 颜色: '白', 尺码: '40' }, 219.5, 9],
      [{ 颜色: '白', 尺码: '41' }, 219.5, 5],
      [{ 颜色: '白', 尺码: '42' }, 219.5, 5],
    ]);
    await expect.poll(() => editor.heading.innerText()).toBe('Item: Keyboard boot');
    await expectAccessible(page, 'an item just created');

    // At 375 px the editor is one column: nothing but the SKU table's own scroller is wider than the screen.
    await page.setViewportSize({ width: 375, height: 800 });
    const wider = await page.evaluate(() =>
      [...document.querySelectorAll<HTMLElement>('main *')]
        .filter((el) => !el.closest('.table-scroll') && el.getBoundingClientRect().right > window.innerWidth + 1)
        .map((el) => `${el.tagName.toLowerCase()}.${el.className}`),
    );
    expect(wider).toEqual([]);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
    await expectAccessible(page, 'the editor at 375 px');
    await screenshot(page, 'console-item-editor-375');
    watch.expectClean();
    await context.close();
  });

  it('when an item is edited, then its schedule is saved in the admin’s time zone, problems show under their fields, and a conflict offers Overwrite and Reload', async () => {
    const made = await makeItem('Conflict boot', {
      skus: [{ skuCode: 'CB-1', specs: { size: '40' }, price: '12.00', stock: 2 }],
      images: [{ url: 'https://cdn.example.com/c.jpg' }],
    });
    const other = await makeItem('Other boot');
    const { context, page } = await signedIn(TEST_ADMIN, '/items?keyword=Conflict');
    const watch = watchPage(page);
    const list = new ItemListPage(page);
    await list.expectLoaded();
    // The list's names link to the editor.
    await page.getByRole('link', { name: 'Conflict boot' }).click();
    const editor = new ItemEditorPage(page);
    await editor.expectLoaded();
    expect(await editor.field(EN.name).inputValue()).toBe('Conflict boot');
    expect(await editor.skuSpecs()).toEqual(['40']);

    await editor.field(EN.publishAt).fill('2030-01-01T08:00');
    await editor.field(EN.unpublishAt).fill('2030-02-01T20:30');
    await editor.field(EN.status).selectOption({ label: 'Active' });
    await editor.button(EN.save).click();
    await expect.poll(() => editor.saved.innerText()).toBe('Saved. This is version 2.');
    expect(await adminItem(made.id)).toMatchObject({
      status: 'active',
      publishAt: '2030-01-01T00:00:00.000Z',
      unpublishAt: '2030-02-01T12:30:00.000Z',
      version: 2,
    });

    // A handle another item has: the service's problem under the Handle field, which gets the focus.
    await editor.field(EN.handle).fill(other.handle);
    await editor.button(EN.save).click();
    await expect.poll(() => editor.errorOf(EN.handle)).toBe('is already taken by another item');
    expect(await editor.focusedName()).toBe(EN.handle);
    await expectAccessible(page, 'the editor with a field problem');
    await editor.field(EN.handle).fill(made.handle);

    // Behind the editor's back: another change. Saving now is a conflict; Overwrite saves mine over it.
    await gql('mutation ($id: Int!) { updateItem(id: $id, input: { stock: 77 }) { version } }', { id: made.id });
    await editor.field(EN.description).fill('Mine');
    await editor.button(EN.save).click();
    await editor.dialog.waitFor();
    expect(await editor.dialog.getByRole('heading').innerText()).toBe('Someone else changed this item');
    expect(await editor.dialog.innerText()).toContain('You started from version 2; the item is at version 3 now.');
    await expectAccessible(page, 'a version conflict');
    await screenshot(page, 'console-item-conflict');
    await editor.dialog.getByRole('button', { name: EN.overwrite }).click();
    await expect.poll(() => editor.saved.innerText()).toBe('Saved. This is version 4.');
    expect(await adminItem(made.id)).toMatchObject({ description: 'Mine', stock: 3, version: 4 });

    // Another change behind its back; Reload drops my edit and shows theirs.
    await gql('mutation ($id: Int!) { updateItem(id: $id, input: { name: "Renamed elsewhere" }) { version } }', {
      id: made.id,
    });
    await editor.field(EN.description).fill('Dropped');
    await editor.button(EN.save).click();
    await editor.dialog.getByRole('button', { name: EN.reload }).click();
    await expect.poll(() => editor.field(EN.name).inputValue()).toBe('Renamed elsewhere');
    expect(await editor.field(EN.description).inputValue()).toBe('Mine');
    expect((await adminItem(made.id)).description).toBe('Mine');
    await editor.field(EN.stock).fill('8');
    await editor.button(EN.save).click();
    await expect.poll(() => editor.saved.innerText()).toBe('Saved. This is version 6.');

    // Delete from the editor: Cancel keeps it; confirming deletes it and goes back to the list.
    await editor.button(EN.deleteItem).click();
    await editor.dialog.getByRole('button', { name: EN.cancel }).click();
    expect(await adminItem(made.id)).not.toBeNull();
    await editor.button(EN.deleteItem).click();
    await editor.dialog.getByRole('button', { name: EN.deleteItem }).click();
    await expect.poll(() => new URL(page.url()).pathname).toBe('/admin/items');
    expect(await adminItem(made.id)).toBeNull();
    // Refused on purpose: the taken handle (400-free GraphQL), the two conflicts (409 in extensions).
    expect(watch.errors).toEqual([]);
    await context.close();
  });

  it('when a viewer opens an item, then the editor is read only and the list offers no bulk actions', async () => {
    const made = await makeItem('Viewer boot');
    const { context, page } = await signedIn(VIEWER, '/items?keyword=Viewer');
    const list = new ItemListPage(page);
    await list.expectLoaded();
    expect(await page.getByRole('checkbox', { name: EN.select('Viewer boot') }).count()).toBe(0);
    expect(await page.getByRole('link', { name: EN.newItem }).count()).toBe(0);
    await page.getByRole('link', { name: 'Viewer boot' }).click();
    const editor = new ItemEditorPage(page);
    await editor.expectLoaded();
    expect(await editor.field(EN.name).isDisabled()).toBe(true);
    expect(await editor.button(EN.save).count()).toBe(0);
    expect(await editor.button(EN.deleteItem).count()).toBe(0);
    expect(
      await page.getByText('You can look at this item; changing it needs the role Owner / Catalogue manager.').count(),
    ).toBe(1);
    await expectAccessible(page, 'the read-only editor');
    expect((await adminItem(made.id)).version).toBe(1);
    // A deep link to a new item: refused by name, no form.
    await page.goto(`${app.url}/admin/items/new`);
    await expect
      .poll(() => page.getByRole('alert').innerText())
      .toBe('Creating items needs the role Owner / Catalogue manager.');
    expect(await page.getByLabel(EN.name, { exact: true }).count()).toBe(0);
    await context.close();
  });

  it('when a catalogue manager works in Chinese and in dark mode, then the list and the editor speak Chinese and an item is made with generated SKUs', async () => {
    // Dark mode too: axe checks the contrast of the dark colours on every state below.
    const { context, page } = await signedIn(MANAGER, '/items/new', 'zh-CN', 'dark');
    const watch = watchPage(page);
    const editor = new ItemEditorPage(page, ZH);
    await editor.expectLoaded();
    expect(await editor.heading.innerText()).toBe('新建商品');
    await editor.field(ZH.name).fill('中文 跑鞋');
    await editor.field(ZH.category).selectOption({ label: 'Shoes › Running' });
    await editor.field(ZH.price).fill('abc');
    await editor.button(ZH.create).click();
    await expect.poll(() => editor.errorOf(ZH.price)).toBe('请输入以元为单位的金额，例如 19.90。');
    await editor.field(ZH.price).fill('88');
    await editor.field(ZH.specName(1)).fill('颜色');
    await editor.field(ZH.specValues(1)).fill('红、蓝');
    await editor.button(ZH.generate).click();
    await expect.poll(() => editor.skuRows.count()).toBe(2);
    await expectAccessible(page, 'the editor in Chinese');
    await screenshot(page, 'console-item-editor-zh');
    await editor.button(ZH.create).click();
    await expect.poll(() => new URL(page.url()).pathname).toMatch(/^\/admin\/items\/\d+$/);
    // The editor of the new item on screen (its chunk loaded) before the next navigation.
    await expect.poll(() => editor.heading.innerText()).toBe('商品：中文 跑鞋');
    const id = Number(new URL(page.url()).pathname.split('/').at(-1));
    expect((await adminItem(id)).skus.map((s: { specs: Record<string, string> }) => s.specs.颜色)).toEqual([
      '红',
      '蓝',
    ]);

    await page.goto(`${app.url}/admin/items?keyword=${encodeURIComponent('中文')}`);
    const list = new ItemListPage(page, ZH);
    await list.expectLoaded();
    expect(await list.field(ZH.minPrice).count()).toBe(1);
    await list.select('中文 跑鞋');
    await list.field(ZH.newStatus).selectOption({ label: '已归档' });
    await list.button(ZH.setStatus).click();
    expect(await list.dialogTitle()).toBe('将 1 件商品的状态设为“已归档”？');
    await list.dialogButton('设置 1 件商品的状态').click();
    await expect.poll(() => list.status.innerText()).toBe('已更改 1 件商品的状态。');
    expect((await adminItem(id)).status).toBe('archived');
    await expectAccessible(page, 'the list in Chinese');
    watch.expectClean();
    await context.close();
  });
});
