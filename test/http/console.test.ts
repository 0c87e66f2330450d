/**
 * The admin console as HTTP serves it (contract §15): /admin and every path under it but /admin/api/*
 * answer the console's page, with a Content-Security-Policy that admits no inline script and
 * `no-store`; its hashed files are cached for a year, `immutable`; a missing file is a 404
 * problem+json, and an unknown /admin/api/* path is still the API's 404. Runs on the bundle `npm
 * start` runs (vitest.config.ts BUNDLE), against the console the build left in dist/console.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectProblem } from '../helpers/accounts.ts';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';

let app: TestApp;
let page: string;
beforeAll(async () => {
  app = await startTestApp();
  page = (await app.request('/admin')).text;
});
afterAll(() => app.close());

/** The files the page loads: its scripts, module preloads and stylesheets. */
const assetsOf = (html: string) => [...html.matchAll(/(?:src|href)="(\/admin\/assets\/[^"]+)"/g)].map((m) => m[1]!);

describe('the console page', () => {
  it('when /admin is fetched, then it is the console page, never stored, under a policy without inline scripts', async () => {
    const res = await app.request('/admin');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.text).toContain('<div id="root"></div>');
    const policy = res.headers.get('content-security-policy') ?? '';
    const directives = new Map(
      policy.split(';').map((d) => {
        const [name, ...values] = d.trim().split(/\s+/);
        return [name!, values];
      }),
    );
    expect(directives.get('script-src')).toEqual(["'self'"]);
    expect(directives.get('style-src')).toEqual(["'self'"]);
    expect(directives.get('connect-src')).toEqual(["'self'"]);
    expect(directives.get('frame-ancestors')).toEqual(["'none'"]);
    // Images from this origin and data: URLs only: the two-factor QR code is an <img> of a data: SVG.
    expect(directives.get('img-src')).toEqual(["'self'", 'data:']);
    expect(policy).not.toContain('unsafe-inline');
    expect(policy).not.toContain('unsafe-eval');
    expect(res.headers.get('x-frame-options')).toBe('DENY');
  });

  it('when the page is read, then every script is a file of this origin (no inline script or style) and nothing comes from another host', () => {
    const scripts = [...page.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)];
    expect(scripts.length).toBeGreaterThan(0);
    for (const [, attributes, body] of scripts) {
      expect(attributes).toMatch(/\bsrc="\/admin\/assets\/[^"]+\.js"/);
      expect(body!.trim()).toBe('');
    }
    expect(page).not.toMatch(/<style\b/);
    expect(page).not.toMatch(/\bstyle="/);
    expect(page).not.toMatch(/(?:src|href)="(?:https?:)?\/\//);
    expect(assetsOf(page).length).toBeGreaterThan(1);
  });

  it.each([
    '/admin/',
    '/admin/login',
    '/admin/items',
    '/admin/items/42?tab=skus',
    '/admin/team/admins',
    '/admin/%E5%95%86%E5%93%81',
  ])('when a deep link (%s) is fetched, then it answers the same page', async (path) => {
    const res = await app.request(path);
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(res.text).toBe(page);
  });

  it('when the page is asked for with HEAD, then the headers are GET’s and there is no body', async () => {
    const get = await app.request('/admin/items');
    const head = await app.request('/admin/items', { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.text).toBe('');
    for (const name of ['content-type', 'content-length', 'cache-control', 'content-security-policy', 'etag']) {
      expect(head.headers.get(name), name).toBe(get.headers.get(name));
    }
  });

  it('when another method is sent to a console path, then 405 with Allow: GET, HEAD', async () => {
    const res = await app.request('/admin/items', { method: 'POST', body: {} });
    expectProblem(res, 405, 'METHOD_NOT_ALLOWED');
    expect(res.headers.get('allow')).toBe('GET, HEAD');
  });
});

describe('the console files', () => {
  it('when each file the page names is fetched, then it is served with its type and cached immutable for a year', async () => {
    for (const path of assetsOf(page)) {
      const res = await app.request(path);
      expect(res.status, path).toBe(200);
      expect(res.headers.get('content-type'), path).toMatch(
        path.endsWith('.css') ? /^text\/css; charset=utf-8$/ : /^text\/javascript; charset=utf-8$/,
      );
      expect(res.headers.get('cache-control'), path).toBe('public, max-age=31536000, immutable');
      // Hashed names: a new build is a new name, so the old one may be cached for ever.
      expect(path).toMatch(/-[A-Za-z0-9_-]{8}\.(?:js|css)$/);
    }
  });

  it('when a file is asked for with HEAD or compressed, then HEAD has no body and br is sent to who accepts it', async () => {
    const script = assetsOf(page).find((p) => p.endsWith('.js'))!;
    const head = await app.request(script, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.text).toBe('');
    expect(head.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    const res = await fetch(app.url + script, { headers: { 'accept-encoding': 'br' } });
    expect(res.headers.get('content-encoding')).toBe('br');
    await res.arrayBuffer();
  });

  it.each([
    '/admin/assets/index-missing0.js',
    '/admin/assets/nothing.txt',
    '/admin/assets/sub/dir.js',
    '/admin/assets/..%2Findex.html',
    '/admin/assets/.vite',
    '/admin/assets/',
  ])('when a file that is not there (%s) is fetched, then 404 problem+json', async (path) => {
    const res = await app.request(path);
    expectProblem(res, 404, 'NOT_FOUND');
    expect(res.headers.get('cache-control') ?? '').not.toContain('immutable');
  });
});

describe('the API under /admin/api', () => {
  it('when an unknown /admin/api path is fetched, then it is the REST 404, not the console', async () => {
    for (const path of ['/admin/api', '/admin/api/', '/admin/api/nothing', '/admin/api/items/1/nothing']) {
      const res = await app.request(path);
      expectProblem(res, 404, 'NOT_FOUND');
      expect(res.body.detail, path).toMatch(/^No route GET /);
    }
  });

  it('when a known /admin/api path is called, then the API answers as before', async () => {
    const login = await app.request('/admin/api/auth/login', { method: 'GET' });
    expectProblem(login, 405, 'METHOD_NOT_ALLOWED');
    const items = await app.request('/admin/api/items');
    expectProblem(items, 401, 'UNAUTHENTICATED');
  });
});
