/**
 * The API explored in a real browser (Chromium, headless): /docs renders every route and its "Try it
 * out" works, GraphiQL runs a query, and a storefront page on another origin calls the API through
 * CORS. No request may fail and no page may log an error. Screenshots: test-results/browser/.
 */
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Locator } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_ADMIN } from '../../src/accounts/login.rest.ts';
import { restRoutes } from '../../src/rest/routes.ts';
import { itemExportRoute } from '../../src/transfer/export.http.ts';
import { launchChromium, screenshot, watchPage } from '../helpers/browser.ts';
import { skipBrowserTests } from '../helpers/browser-availability.ts';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';

let app: TestApp;
let browser: Browser;
let storefront: Server;
let storefrontOrigin: string;

/** A storefront page: lists items and logs the admin in, from its own origin, with plain fetch(). */
const storefrontPage = (api: string) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Storefront</title><link rel="icon" href="data:,"></head>
<body><h1>Storefront on another origin</h1><pre id="out">working…</pre>
<script>
(async () => {
  const out = document.getElementById('out');
  const items = await fetch(${JSON.stringify(`${api}/api/v1/items?limit=3`)});
  const page = await items.json();
  const login = await fetch(${JSON.stringify(`${api}/admin/api/auth/login`)}, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(${JSON.stringify(DEMO_ADMIN)}),
  });
  const auth = await login.json();
  const me = await fetch(${JSON.stringify(`${api}/graphql`)}, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: 'Bearer ' + auth.access_token },
    body: JSON.stringify({ query: '{ adminMe { username } }' }),
  });
  const result = {
    itemsStatus: items.status, names: page.items.map((i) => i.name), total: page.total,
    requestId: items.headers.get('X-Request-Id'),
    loginStatus: login.status, admin: auth.admin && auth.admin.username,
    meStatus: me.status, adminMe: (await me.json()).data.adminMe.username,
  };
  out.textContent = JSON.stringify(result, null, 2);
  out.dataset.done = 'yes';
})().catch((e) => { document.getElementById('out').textContent = 'failed: ' + e; });
</script></body></html>`;

describe.skipIf(skipBrowserTests())('in a browser', { timeout: 60_000 }, () => {
  beforeAll(async () => {
    browser = await launchChromium();
    storefront = createServer((req, res) => {
      if (req.url !== '/') return void res.writeHead(404).end();
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(storefrontPage(app.url));
    });
    storefront.listen(0, '127.0.0.1');
    await once(storefront, 'listening');
    storefrontOrigin = `http://127.0.0.1:${(storefront.address() as AddressInfo).port}`;
    app = await startTestApp({
      NODE_ENV: 'development',
      SEED_DEMO: 'true',
      ADMIN_USERNAME: DEMO_ADMIN.username,
      ADMIN_PASSWORD: DEMO_ADMIN.password,
      CORS_ORIGINS: storefrontOrigin,
    });
  });
  afterAll(async () => {
    await browser?.close();
    storefront?.close();
    await app?.close();
  });

  it('when the front page is opened, then it links every tool, each one click away, and says how the demo admin stands', async () => {
    const page = await browser.newPage({ viewport: { width: 1000, height: 800 } });
    const watch = watchPage(page);
    await page.goto(`${app.url}/`);
    expect(await page.title()).toBe('Shop API');
    const hrefs = await page.locator('a').evaluateAll((as) => as.map((a) => a.getAttribute('href') ?? ''));
    expect(hrefs).toEqual(['/docs', '/graphql', '/openapi.json', '/healthz', '/readyz', '/metrics']);
    expect(await page.locator('body').textContent()).toContain(`Bootstrap admin ${DEMO_ADMIN.username} exists`);
    await screenshot(page, 'front-page');
    watch.expectClean();
    // One click each; the pages behind them are the other tests' (a page left while it still loads,
    // as GraphiQL's lazy workers do, aborts requests that are no fault of the link).
    for (const href of hrefs) {
      await page.goto(`${app.url}/`);
      const [navigation] = await Promise.all([
        page.waitForResponse((r) => r.url() === `${app.url}${href}` && r.request().isNavigationRequest()),
        page.locator(`a[href="${href}"]`).click(),
      ]);
      expect(navigation.status(), href).toBe(200);
    }
    await page.close();
  });

  it('when /docs is opened, then every route is listed and "Try it out" on GET /api/v1/items shows a 200', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const watch = watchPage(page);
    await page.goto(`${app.url}/docs`);
    await page.locator('.opblock').first().waitFor();
    const listed = await page.locator('.opblock').evaluateAll((blocks) =>
      blocks.map((b) => {
        const method = b.querySelector('.opblock-summary-method')?.textContent ?? '';
        return `${method} ${b.querySelector('.opblock-summary-path')?.getAttribute('data-path')}`;
      }),
    );
    // The route table's rows, and the routes outside it that the document describes by hand.
    const routes = [...restRoutes, itemExportRoute].map((r) => `${r.method} ${r.path.replace(/:(\w+)/g, '{$1}')}`);
    expect(listed.sort()).toEqual(routes.sort());
    await screenshot(page, 'docs-routes');

    const list = page.locator('.opblock-get').filter({ has: page.locator('[data-path="/api/v1/items"]') });
    await list.locator('.opblock-summary').click();
    await list.getByRole('button', { name: 'Try it out' }).click();
    await list.getByRole('button', { name: 'Execute' }).click();
    const status = list.locator('.live-responses-table tbody .response-col_status').first();
    await status.waitFor();
    expect((await status.textContent())?.trim()).toBe('200');
    await expect
      .poll(() => list.locator('.live-responses-table .microlight').first().textContent())
      .toContain('"total_pages"');
    await screenshot(list, 'docs-try-it-out');
    watch.expectClean();
    await page.close();
  });

  it('when GraphiQL runs { categories { id name } }, then the result pane shows the categories', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    const watch = watchPage(page);
    // GraphiQL loads the schema first; until it has, its editors and Execute button are still settling.
    const schemaLoaded = page.waitForResponse(
      (r) => r.request().method() === 'POST' && (r.request().postData() ?? '').includes('IntrospectionQuery'),
    );
    await page.goto(`${app.url}/graphql`);
    await schemaLoaded;
    const editor = page.locator('.graphiql-query-editor .monaco-editor').first();
    await editor.waitFor();
    // The first tab opens on the shop's examples, with the Headers editor ready for a token.
    // Monaco renders spaces as U+00A0.
    const text = async (l: Locator) => ((await l.textContent()) ?? '').replace(/\u00a0/g, ' ');
    await expect.poll(() => text(editor)).toContain('query ListItems {');
    expect(await page.locator('.graphiql-tab').first().textContent()).toContain('ListItems');
    await expect.poll(() => text(page.locator('.graphiql-editor-tool'))).toContain('"Authorization": "Bearer "');
    await screenshot(page, 'graphiql-first-tab');
    // The second tab holds the team operations (roles, API keys, the audit log, two-factor login).
    await expect.poll(() => page.locator('.graphiql-tab').count()).toBe(2);
    expect(await page.locator('.graphiql-tab').nth(1).textContent()).toContain('Team');
    // A new tab, as a visitor would open one for their own query.
    await page.locator('.graphiql-tab-add').click();
    await expect.poll(() => page.locator('.graphiql-tab').count()).toBe(3);
    const query = page.locator('.graphiql-query-editor .monaco-editor').first();
    await query.click();
    await page.keyboard.press('ControlOrMeta+A');
    await page.keyboard.press('Delete');
    await page.keyboard.insertText('{ categories { id name } }');
    await expect.poll(() => text(query)).toContain('{ categories { id name } }');
    // Monaco may have opened its suggestion list while typing; that list would take the first click.
    await page.keyboard.press('Escape');
    // As a visitor would, click Execute again if the first click did not run the query (the editor
    // hands its text to GraphiQL after a short debounce).
    const ran = (r: { method(): string; postData(): string | null }) =>
      r.method() === 'POST' && (r.postData() ?? '').includes('categories');
    for (let attempt = 1; ; attempt++) {
      const executed = page.waitForRequest(ran, { timeout: 5_000 });
      await page.locator('.graphiql-execute-button').click();
      try {
        await executed;
        break;
      } catch (err) {
        if (attempt === 3) throw err;
      }
    }
    const result = page.locator('.graphiql-response');
    await expect.poll(() => text(result), { timeout: 15_000 }).toContain('"categories": [');
    expect(await text(result)).toContain('"name": "Shoes"');
    await screenshot(page, 'graphiql-categories');
    watch.expectClean();
    const bytes = [...watch.transferred.values()].reduce((a, b) => a + b, 0);
    console.log(`GraphiQL transferred ${watch.transferred.size} responses, ${bytes} bytes`);
    for (const [url, size] of watch.transferred) console.log(`  ${size}\t${url.replace(app.url, '')}`);
    await page.close();
  });

  it('when a page on another origin lists items and logs in, then CORS lets it read every answer', async () => {
    const page = await browser.newPage({ viewport: { width: 900, height: 500 } });
    const watch = watchPage(page);
    await page.goto(`${storefrontOrigin}/`);
    const out = page.locator('#out[data-done="yes"]');
    await out.waitFor({ timeout: 15_000 });
    const result = JSON.parse((await out.textContent()) ?? '{}');
    expect(result).toMatchObject({
      itemsStatus: 200,
      loginStatus: 200,
      admin: 'admin',
      meStatus: 200,
      adminMe: 'admin',
    });
    expect(result.names).toHaveLength(3);
    expect(result.total).toBeGreaterThan(3);
    // Exposed to the page by Access-Control-Expose-Headers.
    expect(result.requestId).toMatch(/^[0-9a-f-]{36}$/);
    await screenshot(page, 'storefront-cors');
    watch.expectClean();
    await page.close();
  });
});
