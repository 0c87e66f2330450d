/**
 * The Webhooks screen in a real browser (contract §14.2, §15), one flow through the page object of
 * console/webhooks.page.ts against a local receiver (the server may deliver to http://127.0.0.1 with
 * WEBHOOK_ALLOW_HTTP and WEBHOOK_ALLOW_PRIVATE): a refused URL under its field, a webhook created by
 * keyboard alone whose secret is shown once and copied, a catalogue change delivered and signed with
 * that secret, a failed attempt pending with its next time and then retried, a redelivery, a test
 * event, an event picked from the newest of the log and delivered, a rotation (both secrets sign), an
 * edit that disables and one that enables, paging, and a delete after a confirmation. axe on each
 * state at 1440 px, the screen at 375 px, and once in Chinese.
 * Screenshots: test-results/browser/console-webhooks-*.png.
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loginAsAdmin } from '../helpers/accounts.ts';
import { launchChromium, screenshot, watchPage } from '../helpers/browser.ts';
import { skipBrowserTests } from '../helpers/browser-availability.ts';
import { startTestApp, TEST_ADMIN, type TestApp } from '../helpers/test-app.ts';
import { type Received, startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.ts';
import { expectAccessible, SignInPage } from './console/pages.ts';
import { describedBy, isFocused, tabTo } from './console/team.page.ts';
import { WebhooksPage } from './console/webhooks.page.ts';

let app: TestApp;
let browser: Browser;
let receiver: WebhookReceiver;
let ownerToken: string;

const WIDE = [1440] as const;
const PATH = '/shop-hook';

/** A fresh browser profile that may use the clipboard (the Copy button). */
async function openPage(): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 }, locale: 'en-US' });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: app.url });
  return { context, page: await context.newPage() };
}

async function gql(query: string, variables: Record<string, unknown> = {}) {
  const res = await app.graphql(query, variables, { token: ownerToken });
  expect(res.body.errors, res.text).toBeUndefined();
  return res.body.data;
}

/** A catalogue change through the API: a new category (one `category.created` event). */
const createCategory = (name: string) =>
  gql('mutation ($name: String!) { createCategory(input: { name: $name }) { id } }', { name });

const storedWebhooks = async () =>
  (await gql('{ webhooks { id url events description disabled } }')).webhooks as Array<Record<string, unknown>>;

/** The requests the receiver got for one event (the `webhook-id` header). */
const requestsFor = (eventId: string): Received[] =>
  receiver.on(PATH).filter((r) => r.headers['webhook-id'] === eventId);

const verify = (secret: string, request: Received) =>
  new Webhook(secret).verify(request.body, request.headers as Record<string, string>) as Record<string, unknown>;

describe.skipIf(skipBrowserTests())('webhooks in a browser', { timeout: 180_000 }, () => {
  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    browser = await launchChromium();
    app = await startTestApp({ WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOW_PRIVATE: 'true' });
    ownerToken = await loginAsAdmin(app);
  });
  afterAll(async () => {
    await browser?.close();
    await app?.close();
    await receiver?.close();
  });

  it('when the owner manages a webhook, then its secret is shown once, its deliveries, retries, redeliveries and test events show as they happen, and a rotation, edits and a delete take effect', async () => {
    const { context, page } = await openPage();
    const watch = watchPage(page);
    await page.goto(`${app.url}/admin/webhooks`);
    await new SignInPage(page).signInAs(TEST_ADMIN.username, TEST_ADMIN.password);
    const hooks = new WebhooksPage(page);
    await hooks.expectLoaded();
    await page.getByText('No webhooks yet.').waitFor();
    await expectAccessible(page, 'webhooks, none yet', WIDE);

    // By keyboard alone: a refused URL is said under its field, which takes the focus.
    await tabTo(page, hooks.url);
    await page.keyboard.type('ftp://example.com/hook');
    await page.keyboard.press('Enter');
    await expect.poll(() => hooks.url.getAttribute('aria-invalid')).toBe('true');
    expect(await describedBy(page, hooks.url)).toBe('must be an https:// or http:// URL');
    expect(await isFocused(hooks.url)).toBe(true);
    await expectAccessible(page, 'a refused URL', WIDE);

    const url = `${receiver.url}${PATH}`;
    await page.keyboard.press('ControlOrMeta+a');
    await page.keyboard.type(url);
    await page.keyboard.press('Tab');
    expect(await isFocused(hooks.everyEvent)).toBe(true);
    expect(await hooks.everyEvent.isChecked()).toBe(true);
    await page.keyboard.press('Tab');
    await page.keyboard.type('ERP sync');
    await page.keyboard.press('Enter');

    // The secret, this once: focus in the dialog, on Copy; the clipboard holds it.
    const secretDialog = hooks.dialog(`The signing secret of ${url}`);
    await secretDialog.waitFor();
    expect(await secretDialog.innerText()).toContain('it is shown only this once and cannot be shown again');
    const secret = await secretDialog.locator('.secret-value').innerText();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/=]{40,}$/);
    const copy = secretDialog.getByRole('button', { name: 'Copy the secret' });
    expect(await isFocused(copy)).toBe(true);
    await page.keyboard.press('Enter');
    await expect.poll(() => secretDialog.getByRole('status').innerText()).toBe('Copied');
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(secret);
    await expectAccessible(page, 'the new secret', WIDE);
    await screenshot(page, 'console-webhooks-secret');
    await tabTo(page, secretDialog.getByRole('button', { name: 'I have stored the secret' }));
    await page.keyboard.press('Enter');
    await expect.poll(() => secretDialog.isVisible()).toBe(false);
    expect(await page.content()).not.toContain(secret);
    await expect.poll(() => hooks.status.innerText()).toBe(`The webhook ${url} is created.`);
    expect(await hooks.facts(url)).toMatchObject({ Events: 'every event', Description: 'ERP sync', State: 'Enabled' });
    const [stored] = await storedWebhooks();
    expect(stored).toMatchObject({ url, events: ['*'], description: 'ERP sync', disabled: false });

    // Its deliveries: a catalogue change made through the API arrives, signed with that secret.
    await hooks.action(url, 'Deliveries').click();
    await hooks.deliveries.waitFor();
    expect(new URL(page.url()).searchParams.get('webhook')).toBe(String(stored!.id));
    await page.getByText('Nothing delivered yet.').waitFor();
    await createCategory('Hooked');
    const first = await hooks.waitForDelivery({ attempt: '1', status: 'Succeeded', response: '200' });
    expect(first.duration).toMatch(/^\d+ ms$/);
    expect(first.nextAttempt).toBe('None');
    const [firstRequest] = requestsFor(first.event);
    expect(verify(secret, firstRequest!)).toMatchObject({ id: first.event, type: 'category.created' });
    // The answer's first KiB, behind a disclosure.
    const firstRow = hooks.deliveryRow(first.event, 1);
    await firstRow.locator('summary').click();
    expect(await firstRow.locator('.response-body pre').innerText()).toBe('ok');
    await expectAccessible(page, 'a delivery', WIDE);

    // The receiver fails once: the attempt is pending with its next time, then the retry succeeds.
    receiver.answerNext(PATH, { status: 500, body: 'receiver down' });
    await createCategory('Failing');
    const failed = await hooks.waitForDelivery({ attempt: '1', status: 'Pending', response: '500' });
    expect(failed.nextAttempt).not.toBe('None');
    await hooks.statusFilter.selectOption({ label: 'Pending' });
    await expect.poll(() => new URL(page.url()).searchParams.get('status')).toBe('pending');
    await expect.poll(async () => (await hooks.deliveryRows()).map((r) => r.status)).toEqual(['Pending']);
    await expectAccessible(page, 'a pending attempt', WIDE);
    await screenshot(page, 'console-webhooks-pending');
    await hooks.statusFilter.selectOption({ label: 'Every status' });
    // The retry is due ~5 s (±20 %) on; the queue looks every 2 s — room for a loaded machine.
    await hooks.waitForDelivery({ event: failed.event, attempt: '2', status: 'Succeeded', response: '200' }, 30_000);
    expect(requestsFor(failed.event)).toHaveLength(2);

    // Redeliver the first event: one more attempt with the same webhook-id.
    await hooks
      .deliveryRow(first.event, 1)
      .getByRole('button', { name: `Redeliver the event ${first.event}` })
      .click();
    await expect
      .poll(() => hooks.deliveries.getByRole('status').first().innerText())
      .toBe(`The event ${first.event} is being delivered again.`);
    await hooks.waitForDelivery({ event: first.event, attempt: '2', status: 'Succeeded' });
    expect(requestsFor(first.event)).toHaveLength(2);

    // A test event.
    const before = receiver.on(PATH).length;
    await hooks.action(url, 'Send a test event').click();
    await expect.poll(() => hooks.status.innerText()).toBe(`A test event is on its way to ${url}.`);
    await expect.poll(() => receiver.on(PATH).length).toBe(before + 1);
    const tested = receiver.on(PATH).at(-1)!;
    expect(verify(secret, tested)).toMatchObject({ type: 'webhook.test' });
    await hooks.waitForDelivery({ event: String(tested.headers['webhook-id']), attempt: '1', status: 'Succeeded' });

    // The newest events of the log (test events are not in it), newest first; one delivered from there.
    await hooks.events.getByRole('button', { name: 'Show the newest events' }).click();
    await expect
      .poll(async () => (await hooks.eventRows()).map((r) => r.type))
      .toEqual(['category.created', 'category.created']);
    const [newestEvent] = await hooks.eventRows();
    expect(newestEvent!.event).toBe(failed.event);
    expect(newestEvent!.by).toBe(TEST_ADMIN.username);
    await expectAccessible(page, 'the newest events', WIDE);
    await hooks.events.getByRole('button', { name: `Deliver the event ${failed.event}` }).click();
    await expect
      .poll(() => hooks.events.getByRole('status').innerText())
      .toBe(`The event ${failed.event} is on its way to ${url}.`);
    await hooks.waitForDelivery({ event: failed.event, attempt: '3', status: 'Succeeded' });
    expect(requestsFor(failed.event)).toHaveLength(3);

    // Rotate after a confirmation: the new secret shown once; both sign for 24 h.
    await hooks.action(url, 'Rotate the secret').click();
    const rotateDialog = hooks.dialog(`Rotate the signing secret of ${url}?`);
    await rotateDialog.waitFor();
    await expectAccessible(page, 'the rotation confirmation', WIDE);
    await rotateDialog.getByRole('button', { name: 'Rotate the secret' }).click();
    const newSecretDialog = hooks.dialog(`The new signing secret of ${url}`);
    await newSecretDialog.waitFor();
    expect(await newSecretDialog.innerText()).toContain('For the next 24 hours the previous secret keeps signing too');
    const rotated = await newSecretDialog.locator('.secret-value').innerText();
    expect(rotated).toMatch(/^whsec_/);
    expect(rotated).not.toBe(secret);
    await expectAccessible(page, 'the rotated secret', WIDE);
    await newSecretDialog.getByRole('button', { name: 'I have stored the secret' }).click();
    await expect.poll(() => newSecretDialog.isVisible()).toBe(false);
    const beforeRotated = receiver.on(PATH).length;
    await hooks.action(url, 'Send a test event').click();
    await expect.poll(() => receiver.on(PATH).length).toBe(beforeRotated + 1);
    const afterRotation = receiver.on(PATH).at(-1)!;
    expect(String(afterRotation.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(verify(rotated, afterRotation)).toMatchObject({ type: 'webhook.test' });
    expect(verify(secret, afterRotation)).toMatchObject({ type: 'webhook.test' });

    // The screen at 375 px, its deliveries included, without sideways scrolling of the page.
    await expectAccessible(page, 'webhooks with deliveries', [375]);
    await page.setViewportSize({ width: 375, height: 900 });
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
    await screenshot(page, 'console-webhooks-375');
    await page.setViewportSize({ width: 1440, height: 900 });

    // Edit: one event type, a new description, disabled — then a test event is refused, with the reason.
    await hooks.action(url, 'Edit').click();
    const editDialog = hooks.dialog(`Edit the webhook ${url}`);
    await editDialog.waitFor();
    await editDialog.getByLabel(/^Every event/).uncheck();
    await editDialog.getByLabel('category.created').check();
    await editDialog.getByLabel('Description (optional)').fill('ERP sync (categories)');
    await editDialog.getByLabel('Enabled: events are delivered').uncheck();
    await expectAccessible(page, 'the edit dialog', WIDE);
    await editDialog.getByRole('button', { name: 'Save the webhook' }).click();
    await expect.poll(() => hooks.status.innerText()).toBe(`The webhook ${url} is saved.`);
    await expect.poll(() => hooks.facts(url)).toMatchObject({ Events: 'category.created', State: 'Disabled' });
    expect((await storedWebhooks())[0]).toMatchObject({
      events: ['category.created'],
      description: 'ERP sync (categories)',
      disabled: true,
    });
    await hooks.action(url, 'Send a test event').click();
    await expect
      .poll(() => page.getByRole('alert').first().innerText())
      .toBe('No test event sent: is disabled; enable it first');

    // Enabled again.
    await hooks.action(url, 'Edit').click();
    await editDialog.getByLabel('Enabled: events are delivered').check();
    await editDialog.getByRole('button', { name: 'Save the webhook' }).click();
    await expect.poll(async () => (await storedWebhooks())[0]?.disabled).toBe(false);
    await expect.poll(async () => (await hooks.facts(url)).State).toBe('Enabled');

    // Paging: 15 test events through the API make more attempts than a page (20) holds.
    const id = stored!.id;
    const attempts = Number((await hooks.resultLine.innerText()).match(/^(\d+) attempts$/)?.[1]);
    expect(attempts).toBeGreaterThanOrEqual(7);
    for (let i = 0; i < 15; i++) await gql('mutation ($id: Int!) { sendTestEvent(webhookId: $id) }', { id });
    await expect.poll(() => hooks.resultLine.innerText(), { timeout: 15_000 }).toBe(`${attempts + 15} attempts`);
    const pager = page.getByRole('navigation', { name: 'Pages of deliveries' });
    await expect.poll(() => pager.innerText()).toContain('Page 1 of 2');
    expect(await hooks.deliveryRows()).toHaveLength(20);
    await pager.getByRole('button', { name: 'Next page' }).click();
    await expect.poll(() => new URL(page.url()).searchParams.get('page')).toBe('2');
    await expect.poll(async () => (await hooks.deliveryRows()).length).toBe(attempts + 15 - 20);
    await pager.getByRole('button', { name: 'Previous page' }).click();
    await expect.poll(async () => (await hooks.deliveryRows()).length).toBe(20);

    // In Chinese, once.
    await page.getByLabel('Language').selectOption({ label: '中文' });
    await expect.poll(() => page.getByRole('heading', { level: 1 }).innerText()).toBe('Webhook');
    expect(await page.getByRole('form', { name: '添加 Webhook' }).getByLabel('接收地址 URL').count()).toBe(1);
    expect(await page.getByRole('columnheader').allInnerTexts()).toContain('下次尝试');
    await expectAccessible(page, 'webhooks in Chinese', WIDE);
    await page.getByLabel('语言').selectOption({ label: 'English' });
    await hooks.heading.waitFor();

    // Delete after a confirmation: the webhook and its deliveries are gone.
    await hooks.action(url, 'Delete').click();
    const deleteDialog = hooks.dialog(`Delete the webhook ${url}?`);
    await deleteDialog.waitFor();
    await expectAccessible(page, 'the delete confirmation', WIDE);
    await deleteDialog.getByRole('button', { name: 'Delete the webhook' }).click();
    await expect.poll(() => hooks.status.innerText()).toBe(`The webhook ${url} is deleted.`);
    await page.getByText('No webhooks yet.').waitFor();
    await expect.poll(() => isFocused(page.getByRole('heading', { level: 2, name: 'Webhooks' }))).toBe(true);
    expect(await hooks.deliveries.count()).toBe(0);
    expect(await storedWebhooks()).toEqual([]);

    // Refused on purpose: the bad URL and the test event to a disabled webhook (400); nothing else.
    expect(watch.failed.filter((f) => !/\/graphql: 400$/.test(f))).toEqual([]);
    expect(watch.errors.filter((e) => !/400/.test(e))).toEqual([]);
    await context.close();
  });
});
