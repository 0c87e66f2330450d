/**
 * The admin console in a real browser (contract §15), one test per flow, through the page objects
 * of console/pages.ts: an owner signs in by label, sees every screen in the navigation, searches,
 * pages and sorts the items, switches to Chinese; a viewer sees a reduced navigation and is refused a
 * screen the role may not use; an admin with two-factor login passes the code step; a revoked token
 * leads back to sign-in and then to where the admin was. Every screen is checked with axe-core, in
 * English and in Chinese, at 375 and 1440 px. No request may fail unexpectedly and no page may log an
 * error (a refused inline script would). Screenshots: test-results/browser/console-*.png.
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loginAsAdmin } from '../helpers/accounts.ts';
import { launchChromium, screenshot, watchPage } from '../helpers/browser.ts';
import { skipBrowserTests } from '../helpers/browser-availability.ts';
import { startTestApp, TEST_ADMIN, type TestApp } from '../helpers/test-app.ts';
import { totpCode } from '../helpers/trust.ts';
import { ConsoleFrame, expectAccessible, ItemsPage, SignInPage } from './console/pages.ts';

let app: TestApp;
let browser: Browser;
let ownerToken: string;

const VIEWER = { username: 'console-viewer', password: 'viewer-password-123' };
const TWO_FACTOR = { username: 'console-2fa', password: 'two-factor-password-1' };
const ALL_SCREENS = ['Items', 'Categories', 'Search', 'Import', 'Team', 'Audit log', 'Webhooks', 'My account'];
const ALL_SCREENS_ZH = ['商品', '分类管理', '搜索', '导入', '团队', '审计日志', 'Webhook', '我的账号'];

/** A fresh browser profile (its own sessionStorage and localStorage), English unless told. */
async function openPage(locale = 'en-US'): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 }, locale });
  return { context, page: await context.newPage() };
}

async function gql(query: string, variables: Record<string, unknown> = {}, token = ownerToken) {
  const res = await app.graphql(query, variables, { token });
  expect(res.body.errors, res.text).toBeUndefined();
  return res.body.data;
}

describe.skipIf(skipBrowserTests())('the admin console in a browser', { timeout: 120_000 }, () => {
  beforeAll(async () => {
    browser = await launchChromium();
    // The demo catalogue: 32 items (two pages of 20), some with Chinese names.
    app = await startTestApp({ SEED_DEMO: 'true' });
    ownerToken = await loginAsAdmin(app);
    await gql(
      'mutation ($u: String!, $p: String!) { createAdmin(input: { username: $u, password: $p, role: viewer }) { id } }',
      {
        u: VIEWER.username,
        p: VIEWER.password,
      },
    );
    await gql(
      'mutation ($u: String!, $p: String!) { createAdmin(input: { username: $u, password: $p, role: catalog_manager }) { id } }',
      {
        u: TWO_FACTOR.username,
        p: TWO_FACTOR.password,
      },
    );
  });
  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });

  it('when an owner signs in by label, then every screen is in the navigation, the items search and page, and the console speaks Chinese on request', async () => {
    const { context, page } = await openPage();
    const watch = watchPage(page);
    // A deep link before signing in: sign-in first, then back to it.
    await page.goto(`${app.url}/admin/items?status=active`);
    const signIn = new SignInPage(page);
    await signIn.expectLoaded();
    expect(new URL(page.url()).searchParams.get('redirect')).toBe('/items?status=active');
    await expectAccessible(page, 'sign-in');
    await screenshot(page, 'console-sign-in');

    // Keyboard only: Tab to each field, type, Enter.
    await signIn.username.focus();
    await page.keyboard.type(TEST_ADMIN.username);
    await page.keyboard.press('Tab');
    await page.keyboard.type(TEST_ADMIN.password);
    await page.keyboard.press('Enter');
    const items = new ItemsPage(page);
    await items.expectLoaded();
    expect(new URL(page.url()).pathname).toBe('/admin/items');
    expect(new URL(page.url()).searchParams.get('status')).toBe('active');
    await expect.poll(() => items.resultLine.innerText()).toBe('32 items');

    const frame = new ConsoleFrame(page);
    expect(await frame.links()).toEqual(ALL_SCREENS);
    expect(await frame.heading.innerText()).toBe('Items');
    await expectAccessible(page, 'items');
    await screenshot(page, 'console-items');

    // Paging: 20 of 32 on the first page, the rest on the second; the total from the same answer.
    await page.goto(`${app.url}/admin/items`);
    await items.expectLoaded();
    expect(await items.rows.count()).toBe(20);
    await expect.poll(() => page.getByText('Page 1 of 2').count()).toBe(1);
    await items.next.click();
    await expect.poll(() => page.getByText('Page 2 of 2').count()).toBe(1);
    await items.expectLoaded();
    expect(await items.rows.count()).toBe(12);
    expect(new URL(page.url()).searchParams.get('page')).toBe('2');
    await items.previous.click();
    await expect.poll(() => page.getByText('Page 1 of 2').count()).toBe(1);

    // Sorting by keyboard: the Price header's button, aria-sort on its column.
    const priceHeader = page.getByRole('columnheader', { name: /Price/ });
    await priceHeader.getByRole('button').focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => priceHeader.getAttribute('aria-sort')).toBe('ascending');
    await items.expectLoaded();
    // The fifth cell: an owner's rows start with their selection checkbox.
    const prices = await items.table.locator('tbody td.number:nth-child(5)').allInnerTexts();
    const numbers = prices.map((p) => Number(p.replace(/,/g, '')));
    expect(numbers).toHaveLength(20);
    expect(numbers).toEqual([...numbers].sort((a, b) => a - b));

    // The shop's own search: Chinese, and pinyin for the same item.
    for (const keyword of ['羽绒服', 'yurongfu']) {
      await items.search.fill(keyword);
      await items.search.press('Enter');
      await expect.poll(() => items.names(), { message: keyword }).toEqual(['羽绒服 超轻']);
      expect(new URL(page.url()).searchParams.get('keyword')).toBe(keyword);
    }
    await items.search.fill('no-such-thing-anywhere');
    await items.search.press('Enter');
    await expect.poll(() => page.getByText('No items match.').count()).toBe(1);

    // Every screen of the navigation opens (those not built yet say so) and passes axe.
    for (const name of ALL_SCREENS.slice(1)) {
      await frame.navigation.getByRole('link', { name }).click();
      await expect.poll(() => frame.heading.innerText()).toBe(name);
      await expectAccessible(page, name);
    }

    // 中文: the labels change, the choice outlives a reload.
    await page.goto(`${app.url}/admin/items`);
    await items.expectLoaded();
    await frame.language.selectOption({ label: '中文' });
    await expect.poll(() => frame.heading.innerText()).toBe('商品');
    const zhNavigation = page.getByRole('navigation', { name: '主导航' });
    expect(await frame.links(zhNavigation)).toEqual(ALL_SCREENS_ZH);
    expect(await page.getByLabel('搜索商品').count()).toBe(1);
    expect(await page.locator('html').getAttribute('lang')).toBe('zh-CN');
    await page.reload();
    await expect.poll(() => page.getByRole('heading', { level: 1 }).innerText()).toBe('商品');
    await expectAccessible(page, 'items in Chinese');
    await screenshot(page, 'console-items-zh');
    // Every other screen in Chinese too, each passing axe as it does in English.
    for (const name of ALL_SCREENS_ZH.slice(1)) {
      await zhNavigation.getByRole('link', { name, exact: true }).click();
      await expect.poll(() => frame.heading.innerText()).toBe(name);
      await expectAccessible(page, `${name} in Chinese`);
    }
    await zhNavigation.getByRole('link', { name: ALL_SCREENS_ZH[0], exact: true }).click();
    await expect.poll(() => frame.heading.innerText()).toBe('商品');
    await page.getByLabel('语言').selectOption({ label: 'English' });
    await expect.poll(() => frame.heading.innerText()).toBe('Items');

    // At 375 px the navigation folds behind Menu, which the keyboard opens.
    await page.setViewportSize({ width: 375, height: 800 });
    const menu = page.getByRole('button', { name: 'Menu' });
    expect(await frame.navigation.getByRole('link').count()).toBe(0);
    await menu.focus();
    await page.keyboard.press('Enter');
    expect(await menu.getAttribute('aria-expanded')).toBe('true');
    expect(await frame.links()).toEqual(ALL_SCREENS);
    await expectAccessible(page, 'items with the menu open');
    await screenshot(page, 'console-items-375');
    await frame.navigation.getByRole('link', { name: 'My account' }).click();
    await expect.poll(() => frame.heading.innerText()).toBe('My account');

    // Sign out: the session ends on the service too, and the console asks to sign in again.
    await page.setViewportSize({ width: 1440, height: 900 });
    await frame.signOut.click();
    await signIn.expectLoaded();
    await page.goto(`${app.url}/admin/items`);
    await signIn.expectLoaded();
    watch.expectClean();
    await context.close();
  });

  it('when a viewer signs in, then the navigation shows only what a viewer may use, and a deep link elsewhere is refused by name', async () => {
    const { context, page } = await openPage();
    const watch = watchPage(page);
    await page.goto(`${app.url}/admin/`);
    await new SignInPage(page).signInAs(VIEWER.username, VIEWER.password);
    const items = new ItemsPage(page);
    await items.expectLoaded();
    const frame = new ConsoleFrame(page);
    expect(await frame.links()).toEqual(['Items', 'Categories', 'Search', 'My account']);
    expect(await page.getByText(`${VIEWER.username} (Viewer)`).count()).toBe(1);

    await page.goto(`${app.url}/admin/team`);
    await expect.poll(() => frame.heading.innerText()).toBe('Not allowed');
    expect(await page.getByRole('alert').innerText()).toBe('This screen needs the role Owner; yours is Viewer.');
    await expectAccessible(page, 'a refused screen');
    expect(await frame.links()).toEqual(['Items', 'Categories', 'Search', 'My account']);
    watch.expectClean();
    await context.close();
  });

  it('when an admin with two-factor login signs in, then a wrong code is said under the field and a recovery code lets them in', async () => {
    const token = await loginAsAdmin(app, TWO_FACTOR);
    const { enrollTotp } = await gql('mutation { enrollTotp { secret } }', {}, token);
    const { confirmTotp: recoveryCodes } = await gql(
      'mutation ($code: String!) { confirmTotp(code: $code) }',
      { code: await totpCode(enrollTotp.secret) },
      token,
    );

    const { context, page } = await openPage('zh-CN');
    const watch = watchPage(page);
    await page.goto(`${app.url}/admin/login`);
    // The browser asks for Chinese: the console starts in Chinese.
    await page.getByLabel('用户名').fill(TWO_FACTOR.username);
    await page.getByLabel('密码').fill(TWO_FACTOR.password);
    await page.getByRole('button', { name: '登录' }).click();
    const code = page.getByLabel('一次性验证码或恢复码');
    await code.waitFor();
    await expect.poll(() => code.evaluate((el) => el === document.activeElement)).toBe(true);
    await page.getByLabel('语言').selectOption({ label: 'English' });
    const signIn = new SignInPage(page);
    await expectAccessible(page, 'the code step');

    await signIn.code.fill('000000');
    await signIn.verify.click();
    await expect.poll(() => signIn.code.getAttribute('aria-invalid')).toBe('true');
    const describedBy = (await signIn.code.getAttribute('aria-describedby'))!;
    expect(await page.locator(`[id="${describedBy}"]`).innerText()).toBe(
      'That code is wrong, already used or expired.',
    );
    await expectAccessible(page, 'the code step with an error');
    await screenshot(page, 'console-sign-in-code');

    await signIn.code.fill(recoveryCodes[0]);
    await signIn.verify.click();
    await new ItemsPage(page).expectLoaded();
    expect(await new ConsoleFrame(page).links()).toEqual(['Items', 'Categories', 'Search', 'Import', 'My account']);
    // The wrong code was refused with 401 by design; nothing else may fail.
    expect(watch.failed.filter((f) => !f.includes('/graphql'))).toEqual([]);
    expect(watch.errors.filter((e) => !e.includes('401'))).toEqual([]);
    await context.close();
  });

  it('when the field checks fail or the password is wrong, then the problems are said under the fields and in an alert', async () => {
    const { context, page } = await openPage();
    await page.goto(`${app.url}/admin/login`);
    const signIn = new SignInPage(page);
    await signIn.signInAs('x', 'some-password');
    await expect.poll(() => signIn.username.getAttribute('aria-invalid')).toBe('true');
    const describedBy = (await signIn.username.getAttribute('aria-describedby'))!;
    expect(await page.locator(`[id="${describedBy}"]`).innerText()).toMatch(/\S/);
    await expectAccessible(page, 'sign-in with a field error');

    await signIn.username.fill(TEST_ADMIN.username);
    await signIn.password.fill('not-the-password');
    await signIn.signIn.click();
    await expect.poll(() => signIn.alert.innerText()).toBe('Wrong username or password.');
    await expectAccessible(page, 'sign-in with a wrong password');
    await context.close();
  });

  it('when the session is revoked while the admin works, then the next request leads to sign-in and back to the same page', async () => {
    const { context, page } = await openPage();
    const watch = watchPage(page);
    await page.goto(`${app.url}/admin/items?keyword=boot`);
    await new SignInPage(page).signInAs(VIEWER.username, VIEWER.password);
    const items = new ItemsPage(page);
    await items.expectLoaded();

    const { admins } = await gql('{ admins { id username } }');
    const viewer = admins.find((a: { username: string }) => a.username === VIEWER.username);
    await gql('mutation ($id: Int!) { revokeAllSessionsOfAdmin(adminId: $id) }', { id: viewer.id });

    await items.status.selectOption({ label: 'Draft' });
    const signIn = new SignInPage(page);
    await signIn.expectLoaded();
    expect(new URL(page.url()).searchParams.get('redirect')).toBe('/items?keyword=boot&status=draft');
    await signIn.signInAs(VIEWER.username, VIEWER.password);
    await items.table.or(page.getByText('No items match.')).first().waitFor();
    expect(new URL(page.url()).pathname).toBe('/admin/items');
    expect(new URL(page.url()).searchParams.get('status')).toBe('draft');
    // The revoked token's one refused request (401) is the point of the test.
    expect(watch.failed.filter((f) => !f.includes('/graphql: 401'))).toEqual([]);
    expect(watch.errors.filter((e) => !e.includes('401'))).toEqual([]);
    await context.close();
  });
});
