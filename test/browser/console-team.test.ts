/**
 * The Team, Audit log and My account screens and two-factor enrolment in a real browser (contract
 * §15), one test per flow through the page objects of console/team.page.ts: an owner manages admins
 * and API keys (the secret shown once, copied, and working against the REST API until revoked) and
 * reads the audit log as diffs; an admin changes their password, ends a session, turns two-factor
 * login on by keyboard alone (codes computed here from the secret, as an app would), signs in with a
 * code and turns it off; where ADMIN_REQUIRE_TOTP demands it, sign-in leads through enrolment first.
 * axe-core on each state. Screenshots: test-results/browser/console-team-*.png.
 */
import { readFileSync } from 'node:fs';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gqlCode, loginAsAdmin } from '../helpers/accounts.ts';
import { launchChromium, screenshot, watchPage } from '../helpers/browser.ts';
import { skipBrowserTests } from '../helpers/browser-availability.ts';
import { startTestApp, TEST_ADMIN, type TestApp } from '../helpers/test-app.ts';
import { totpCode } from '../helpers/trust.ts';
import { ConsoleFrame, expectAccessible, ItemsPage, SignInPage } from './console/pages.ts';
import {
  AccountPage,
  AuditLogPage,
  describedBy,
  EnrolmentPanel,
  isFocused,
  rowCells,
  TeamPage,
  tableRows,
  tabTo,
} from './console/team.page.ts';

let app: TestApp;
let browser: Browser;
let ownerToken: string;

const ME = { username: 'console-me', password: 'my-first-password-1' };
const MY_NEW_PASSWORD = 'my-second-password-2';
const NEW_ADMIN = { username: 'console-new', password: 'new-admin-password-1' };

/** A fresh browser profile that may use the clipboard (the Copy buttons). */
async function openPage(app: TestApp, width = 1440): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ viewport: { width, height: 900 }, locale: 'en-US' });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: app.url });
  return { context, page: await context.newPage() };
}

const clipboard = (page: Page) => page.evaluate(() => navigator.clipboard.readText());

/** The GraphQL code a token's next request answers (undefined: it still works). */
const tokenState = async (token: string) => gqlCode(await app.graphql('{ adminMe { id } }', {}, { token }));

describe.skipIf(skipBrowserTests())('team, audit log and my account in a browser', { timeout: 180_000 }, () => {
  beforeAll(async () => {
    browser = await launchChromium();
    app = await startTestApp({ LOGIN_IP_PER_MINUTE: '1000' });
    ownerToken = await loginAsAdmin(app);
    const res = await app.graphql(
      'mutation ($u: String!, $p: String!) { createAdmin(input: { username: $u, password: $p, role: support }) { id } }',
      { u: ME.username, p: ME.password },
      { token: ownerToken },
    );
    expect(res.body.errors, res.text).toBeUndefined();
  });
  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });

  it('when the owner manages the team, then admins are created, re-roled and disabled, an API key is shown once and works until revoked, and the audit log shows each change as a diff', async () => {
    const { context, page } = await openPage(app);
    const watch = watchPage(page);
    await page.goto(`${app.url}/admin/team`);
    await new SignInPage(page).signInAs(TEST_ADMIN.username, TEST_ADMIN.password);
    const team = new TeamPage(page);
    await team.expectLoaded();
    await expectAccessible(page, 'team');

    // An admin: created with a role, the role changed in a dialog, then disabled after a confirmation.
    await team.createAdmin(NEW_ADMIN.username, NEW_ADMIN.password, 'Catalogue manager');
    await page.getByText(`Created the admin ${NEW_ADMIN.username}.`).waitFor();
    const row = team.adminRow(NEW_ADMIN.username);
    await expect.poll(async () => (await rowCells(row)).slice(1, 4)).toEqual(['Catalogue manager', 'Enabled', 'Off']);

    await row.getByRole('button', { name: `Change role of ${NEW_ADMIN.username}` }).click();
    const roleDialog = team.dialog(`Change the role of ${NEW_ADMIN.username}`);
    await roleDialog.getByLabel('New role').selectOption({ label: 'Support' });
    await expectAccessible(page, 'the role dialog');
    await roleDialog.getByRole('button', { name: 'Save the role' }).click();
    await page.getByText(`${NEW_ADMIN.username} is now Support.`).waitFor();
    await expect.poll(async () => (await rowCells(row))[1]).toBe('Support');

    // The last owner cannot be demoted: the service's reason is said in the dialog.
    await team
      .adminRow(TEST_ADMIN.username)
      .getByRole('button', { name: `Change role of ${TEST_ADMIN.username}` })
      .click();
    const ownDialog = team.dialog(`Change the role of ${TEST_ADMIN.username}`);
    await ownDialog.getByLabel('New role').selectOption({ label: 'Viewer' });
    await ownDialog.getByRole('button', { name: 'Save the role' }).click();
    await expect.poll(() => ownDialog.getByRole('alert').innerText()).toMatch(/last enabled owner/);
    await page.keyboard.press('Escape');
    await expect.poll(() => ownDialog.isVisible()).toBe(false);

    await row.getByRole('button', { name: `Disable ${NEW_ADMIN.username}` }).click();
    const disableDialog = team.dialog(`Disable ${NEW_ADMIN.username}?`);
    await expectAccessible(page, 'the disable dialog');
    await disableDialog.getByRole('button', { name: `Disable ${NEW_ADMIN.username}` }).click();
    await expect.poll(async () => (await rowCells(row))[2]).toBe('Disabled');
    const refused = await app.request('/admin/api/auth/login', { body: NEW_ADMIN });
    expect(refused.body.code).toBe('ACCOUNT_DISABLED');
    await screenshot(page, 'console-team-admins');

    // An API key: the secret shown once in a dialog, copied, working against the REST API.
    await team.createKey('erp-sync', 'Catalogue manager', '2099-12-31');
    const keyDialog = team.dialog('The API key erp-sync');
    await keyDialog.waitFor();
    expect(await keyDialog.innerText()).toContain('it is shown only this once and cannot be shown again');
    const secret = await keyDialog.locator('.secret-value').innerText();
    expect(secret).toMatch(/^shk_[A-Za-z0-9_-]{40,}$/);
    await expectAccessible(page, 'the new key dialog');
    await screenshot(page, 'console-team-new-key');
    await keyDialog.getByRole('button', { name: 'Copy the key' }).click();
    await expect.poll(() => keyDialog.getByRole('status').innerText()).toBe('Copied');
    expect(await clipboard(page)).toBe(secret);
    const withKey = await app.request('/admin/api/items?limit=1', { token: secret });
    expect(withKey.status, withKey.text).toBe(200);

    await keyDialog.getByRole('button', { name: 'I have stored the key' }).click();
    await expect.poll(() => keyDialog.isVisible()).toBe(false);
    // Once closed, the secret is nowhere in the page.
    expect(await page.content()).not.toContain(secret);
    const keyRow = team.keyRow('erp-sync');
    const prefix = secret.slice(4, 12);
    await expect
      .poll(async () => await rowCells(keyRow))
      .toEqual([
        'erp-sync',
        'Catalogue manager',
        expect.stringMatching(new RegExp(`^shk_${prefix}`)),
        expect.stringContaining(`by ${TEST_ADMIN.username}`),
        expect.stringMatching(/^Dec 31, 2099, 11:59/),
        expect.any(String),
        'Active',
        expect.stringContaining('Revoke'),
      ]);

    await keyRow.getByRole('button', { name: 'Revoke the key erp-sync' }).click();
    const revokeDialog = team.dialog('Revoke the key erp-sync?');
    await expectAccessible(page, 'the revoke dialog');
    await revokeDialog.getByRole('button', { name: 'Revoke the key' }).click();
    await expect.poll(async () => (await rowCells(keyRow))[6]).toBe('Revoked');
    const revoked = await app.request('/admin/api/items?limit=1', { token: secret });
    expect(revoked.status).toBe(401);
    expect(revoked.body.code).toBe('TOKEN_REVOKED');
    await expectAccessible(page, 'team after the changes');

    // The audit log, filtered to the role change of that admin: one entry, its diff.
    const { admins } = (await app.graphql('{ admins { id username } }', {}, { token: ownerToken })).body.data;
    const newId = admins.find((a: { username: string }) => a.username === NEW_ADMIN.username).id;
    await new ConsoleFrame(page).navigation.getByRole('link', { name: 'Audit log' }).click();
    const audit = new AuditLogPage(page);
    await audit.expectLoaded();
    await audit.action.fill('admin.role');
    await audit.targetType.selectOption({ label: 'Admin' });
    await audit.targetId.fill(String(newId));
    await audit.apply.click();
    await expect.poll(() => audit.resultLine.innerText()).toBe('1 entry');
    const search = new URL(page.url()).searchParams;
    expect([search.get('action'), search.get('targetType'), search.get('targetId')]).toEqual([
      'admin.role',
      'admin',
      String(newId),
    ]);
    expect(await audit.read()).toEqual([
      {
        title: `admin.role Admin #${newId}`,
        changes: [{ field: 'role', change: 'Changed', before: 'catalog_manager', after: 'support' }],
      },
    ]);
    await expectAccessible(page, 'the audit log filtered');

    // Its creation: each field added (said in words), the password redacted as the service stored it.
    await audit.action.fill('admin.create');
    await audit.apply.click();
    await expect.poll(async () => (await audit.read())[0]?.title).toBe(`admin.create Admin #${newId}`);
    const [created] = await audit.read();
    expect(created!.changes).toEqual(
      expect.arrayContaining([
        { field: 'username', change: 'Added', before: '(none)', after: NEW_ADMIN.username },
        { field: 'password', change: 'Added', before: '(none)', after: '[redacted]' },
      ]),
    );
    expect(await page.content()).not.toContain(NEW_ADMIN.password);

    // Who acted, over a time range: the API key's creation by the owner, from an hour ago to now.
    await page.getByRole('button', { name: 'Clear filters' }).click();
    await audit.action.fill('api_key.create');
    await audit.actorType.selectOption({ label: 'Admin' });
    const local = (d: Date) => new Date(d.getTime() - d.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
    await audit.from.fill(local(new Date(Date.now() - 3_600_000)));
    await audit.to.fill(local(new Date(Date.now() + 60_000)));
    await audit.apply.click();
    await expect.poll(() => audit.resultLine.innerText()).toBe('1 entry');
    expect(await audit.entries.first().innerText()).toContain(`${TEST_ADMIN.username} (Admin #1)`);
    await screenshot(page, 'console-team-audit-log');

    // Paging: ten entries a page, the total from the same answer, the page in the URL.
    for (const name of ['Paging A', 'Paging B', 'Paging C']) {
      const res = await app.graphql(
        'mutation ($n: String!) { createCategory(input: { name: $n }) { id } }',
        { n: name },
        {
          token: ownerToken,
        },
      );
      expect(res.body.errors, res.text).toBeUndefined();
    }
    await page.getByRole('button', { name: 'Clear filters' }).click();
    await expect.poll(() => audit.from.inputValue()).toBe('');
    await page.getByLabel('Per page').selectOption('10');
    await audit.expectLoaded();
    const total = Number((await audit.resultLine.innerText()).match(/^(\d+) entries$/)?.[1]);
    expect(total).toBeGreaterThan(10);
    expect(await audit.entries.count()).toBe(10);
    const pages = Math.ceil(total / 10);
    await page.getByText(`Page 1 of ${pages}`).waitFor();
    const firstPage = await audit.read();
    await page.getByRole('button', { name: 'Next page' }).click();
    await page.getByText(`Page 2 of ${pages}`).waitFor();
    await audit.expectLoaded();
    expect(new URL(page.url()).searchParams.get('page')).toBe('2');
    expect(await audit.entries.count()).toBe(Math.min(10, total - 10));
    expect((await audit.read())[0]).not.toEqual(firstPage[0]);
    // The refused demotion answered 400 by design; nothing else may fail.
    expect(watch.failed.filter((f) => !f.endsWith('/graphql: 400'))).toEqual([]);
    expect(watch.errors.filter((e) => !e.includes('400'))).toEqual([]);
    await context.close();
  });

  it('when an admin uses My account at 375 px, then the password changes, a session ends, two-factor login is turned on by keyboard, signs in with a code, and is turned off', async () => {
    const { context, page } = await openPage(app, 375);
    const watch = watchPage(page);
    await page.goto(`${app.url}/admin/account`);
    await new SignInPage(page).signInAs(ME.username, ME.password);
    const account = new AccountPage(page);
    await account.expectLoaded();
    expect(await tableRows(account.sessions)).toHaveLength(1);
    expect((await tableRows(account.sessions))[0]![0]).toContain('This session');
    await expectAccessible(page, 'my account');
    await screenshot(page, 'console-team-account-375');

    // The password: a wrong current one is said under its field; the right one ends the other sessions.
    const elsewhere = await loginAsAdmin(app, ME);
    await account.currentPassword.fill('not-my-password');
    await account.newPassword.fill(MY_NEW_PASSWORD);
    await account.changePassword.click();
    await expect.poll(() => account.currentPassword.getAttribute('aria-invalid')).toBe('true');
    expect(await describedBy(page, account.currentPassword)).toBe('The current password is wrong.');
    await expectAccessible(page, 'a wrong current password');
    await account.currentPassword.fill(ME.password);
    await account.changePassword.click();
    await expect
      .poll(() => account.status('Password').innerText())
      .toBe('Your password is changed. Your other sessions were ended; this one stays signed in.');
    expect(await tokenState(elsewhere)).toBe('TOKEN_REVOKED');

    // Sessions: a second sign-in (through the API) is listed, this one is marked, the other ended.
    const second = await loginAsAdmin(app, { username: ME.username, password: MY_NEW_PASSWORD });
    await page.reload();
    await account.expectLoaded();
    await expect.poll(async () => (await tableRows(account.sessions)).length).toBe(2);
    const marked = (await tableRows(account.sessions)).filter((cells) => cells[0]!.includes('This session'));
    expect(marked).toHaveLength(1);
    await expectAccessible(page, 'two sessions');
    const other = account.sessions.locator('tbody tr').filter({ hasNotText: 'This session' });
    await other.getByRole('button', { name: /^End session/ }).click();
    await expect.poll(() => account.status('Sessions').innerText()).toBe('Ended 1 session.');
    await expect.poll(async () => (await tableRows(account.sessions)).length).toBe(1);
    expect(await tokenState(second)).toBe('TOKEN_REVOKED');

    // Every other session at once, after a confirmation.
    const others = [await loginAsAdmin(app, { username: ME.username, password: MY_NEW_PASSWORD })];
    others.push(await loginAsAdmin(app, { username: ME.username, password: MY_NEW_PASSWORD }));
    await page.reload();
    await account.expectLoaded();
    await expect.poll(async () => (await tableRows(account.sessions)).length).toBe(3);
    await page.getByRole('button', { name: 'End all other sessions' }).click();
    const endAll = page.getByRole('dialog', { name: 'End all other sessions?' });
    await expectAccessible(page, 'ending every other session');
    await endAll.getByRole('button', { name: 'End 2 other sessions' }).click();
    await expect.poll(() => account.status('Sessions').innerText()).toBe('Ended 2 sessions.');
    await expect.poll(async () => (await tableRows(account.sessions)).length).toBe(1);
    expect(await Promise.all(others.map(tokenState))).toEqual(['TOKEN_REVOKED', 'TOKEN_REVOKED']);

    // Two-factor login on, by keyboard alone: the QR code (an image the CSP admits), a code, the recovery codes.
    const enrolment = new EnrolmentPanel(page);
    await account.twoFactor.getByRole('heading', { name: 'Two-factor login' }).click();
    await tabTo(page, account.twoFactor.getByRole('button', { name: 'Turn on two-factor login' }));
    await page.keyboard.press('Enter');
    await enrolment.scanHeading.waitFor();
    await expect.poll(() => isFocused(enrolment.scanHeading)).toBe(true);
    await enrolment.expectQrCodeShown();
    const secret = await enrolment.secretText();
    expect(secret).toMatch(/^[A-Z2-7]{16,}$/);
    await expectAccessible(page, 'enrolment: scan');
    await screenshot(page, 'console-team-enrol-375');
    await tabTo(page, enrolment.code);
    await page.keyboard.type('000000');
    await page.keyboard.press('Enter');
    await expect.poll(() => enrolment.code.getAttribute('aria-invalid')).toBe('true');
    expect(await describedBy(page, enrolment.code)).toMatch(/not the app's current code/);
    await page.keyboard.press('Control+A');
    await page.keyboard.type(await totpCode(secret));
    await page.keyboard.press('Enter');
    await enrolment.codesHeading.waitFor();
    await expect.poll(() => isFocused(enrolment.codesHeading)).toBe(true);
    const codes = await enrolment.recoveryCodes.allInnerTexts();
    expect(codes).toHaveLength(10);
    await expectAccessible(page, 'enrolment: recovery codes');
    await tabTo(page, enrolment.copyCodes);
    await page.keyboard.press('Enter');
    await expect.poll(() => account.twoFactor.locator('.copy-status').innerText()).toBe('Copied');
    expect(await clipboard(page)).toBe(codes.join('\n'));
    await tabTo(page, enrolment.download);
    const [download] = await Promise.all([page.waitForEvent('download'), page.keyboard.press('Enter')]);
    expect(download.suggestedFilename()).toBe('shop-admin-recovery-codes.txt');
    expect(readFileSync((await download.path())!, 'utf8')).toBe(`${codes.join('\n')}\n`);
    await tabTo(page, account.twoFactor.getByRole('button', { name: 'Done' }));
    await page.keyboard.press('Enter');
    await expect.poll(() => account.status('Two-factor login').innerText()).toBe('Two-factor login is on.');
    expect(await account.twoFactor.innerText()).toContain('Two-factor login is on: signing in needs a code');
    expect(await enrolment.recoveryCodes.count()).toBe(0);

    // Signed out and in again: the code step takes the app's next code (the confirmation's is spent).
    const frame = new ConsoleFrame(page);
    await page.getByRole('button', { name: 'Menu' }).click();
    await frame.signOut.click();
    const signIn = new SignInPage(page);
    await signIn.signInAs(ME.username, MY_NEW_PASSWORD);
    await signIn.code.waitFor();
    await signIn.code.fill(await totpCode(secret, Math.floor(Date.now() / 1000) + 30));
    await signIn.verify.click();
    await new ItemsPage(page).table.or(page.getByText('No items match.')).first().waitFor();

    // Turned off with a recovery code; a wrong code is said under the field first.
    await page.goto(`${app.url}/admin/account`);
    await account.expectLoaded();
    const disableCode = account.twoFactor.getByLabel('One-time or recovery code');
    await disableCode.fill('123456');
    await account.twoFactor.getByRole('button', { name: 'Turn off two-factor login' }).click();
    await expect.poll(() => disableCode.getAttribute('aria-invalid')).toBe('true');
    expect(await describedBy(page, disableCode)).toBe('That code is wrong, already used or expired.');
    await disableCode.fill(codes[0]!);
    await account.twoFactor.getByRole('button', { name: 'Turn off two-factor login' }).click();
    await expect.poll(() => account.status('Two-factor login').innerText()).toBe('Two-factor login is off.');
    expect(await account.twoFactor.getByRole('button', { name: 'Turn on two-factor login' }).count()).toBe(1);

    // In Chinese.
    await page.getByLabel('Language').selectOption({ label: '中文' });
    await expect.poll(() => page.getByRole('heading', { level: 1 }).innerText()).toBe('我的账号');
    expect(await page.getByRole('heading', { level: 2 }).allInnerTexts()).toEqual(['密码', '两步验证', '登录会话']);
    expect(await page.getByRole('button', { name: '修改密码' }).count()).toBe(1);
    await expectAccessible(page, 'my account in Chinese');
    await screenshot(page, 'console-team-account-zh');

    // Refused on purpose: the wrong password (401) and the wrong codes (400, 401); nothing else.
    expect(watch.failed.filter((f) => !/\/graphql: 40[01]$/.test(f))).toEqual([]);
    expect(watch.errors.filter((e) => !/40[01]/.test(e))).toEqual([]);
    await context.close();
  });

  it('when the service requires two-factor login, then sign-in leads an admin without it through enrolment by keyboard, even after a reload, and then in', async () => {
    const strict = await startTestApp({ ADMIN_REQUIRE_TOTP: 'true' });
    try {
      const { context, page } = await openPage(strict);
      const watch = watchPage(page);
      await page.goto(`${strict.url}/admin/items`);
      const signIn = new SignInPage(page);
      await signIn.expectLoaded();
      await signIn.username.focus();
      await page.keyboard.type(TEST_ADMIN.username);
      await page.keyboard.press('Tab');
      await page.keyboard.type(TEST_ADMIN.password);
      await page.keyboard.press('Enter');
      const intro = page.getByText('This shop requires two-factor login for every admin.');
      await intro.waitFor();
      await expect.poll(() => isFocused(intro)).toBe(true);
      await expectAccessible(page, 'required enrolment');

      // A reload keeps the admin here: the token may only enrol.
      await page.reload();
      await intro.waitFor();
      expect(new URL(page.url()).pathname).toBe('/admin/login');

      const enrolment = new EnrolmentPanel(page);
      await tabTo(page, page.getByRole('button', { name: 'Set up two-factor login' }));
      await page.keyboard.press('Enter');
      await enrolment.scanHeading.waitFor();
      await expect.poll(() => isFocused(enrolment.scanHeading)).toBe(true);
      await enrolment.expectQrCodeShown();
      await expectAccessible(page, 'required enrolment: scan');
      await screenshot(page, 'console-team-required-enrolment');
      await tabTo(page, enrolment.code);
      await page.keyboard.type(await totpCode(await enrolment.secretText()));
      await page.keyboard.press('Enter');
      await enrolment.codesHeading.waitFor();
      expect(await enrolment.recoveryCodes.count()).toBe(10);
      await expectAccessible(page, 'required enrolment: recovery codes');
      await tabTo(page, page.getByRole('button', { name: 'Continue to the console' }));
      await page.keyboard.press('Enter');

      await new ItemsPage(page).table.or(page.getByText('No items match.')).first().waitFor();
      expect(new URL(page.url()).pathname).toBe('/admin/items');
      expect(await new ConsoleFrame(page).links()).toContain('Team');
      watch.expectClean();
      await context.close();
    } finally {
      await strict.close();
    }
  });
});
