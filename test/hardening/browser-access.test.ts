/**
 * Contract §7.5: CORS for the configured origins, the headers every answer carries, and the
 * Content-Security-Policy of the HTML pages.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';

const SHOP = 'https://shop.example.com';
const OTHER = 'https://evil.example.net';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp({ CORS_ORIGINS: `${SHOP}, https://admin.example.com`, GRAPHIQL: 'true' });
});
afterAll(() => app.close());

const preflight = (path: string, origin: string, method = 'GET') =>
  fetch(app.url + path, {
    method: 'OPTIONS',
    headers: {
      origin,
      'access-control-request-method': method,
      'access-control-request-headers': 'authorization, content-type',
    },
  });

describe('CORS', () => {
  it('when an allowed origin reads the catalogue, then the answer names that origin, varies on Origin and exposes our headers', async () => {
    const res = await fetch(`${app.url}/api/v1/items`, { headers: { origin: SHOP } });
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe(SHOP);
    expect(res.headers.get('vary')).toMatch(/\bOrigin\b/);
    const exposed = res.headers.get('access-control-expose-headers')?.split(/,\s*/);
    expect(exposed).toEqual(['X-Request-Id', 'Location', 'Retry-After', 'WWW-Authenticate', 'ETag']);
    expect(res.headers.get('access-control-allow-credentials')).toBeNull();
  });

  it('when an allowed origin gets an error, then the error carries the CORS headers too', async () => {
    const res = await fetch(`${app.url}/api/v1/items/999999`, { headers: { origin: SHOP } });
    expect(res.status).toBe(404);
    expect(res.headers.get('access-control-allow-origin')).toBe(SHOP);
  });

  it("when an allowed origin sends a preflight, then 204 with that path's methods, our request headers and max-age 600", async () => {
    const res = await preflight('/admin/api/items', SHOP, 'POST');
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe(SHOP);
    expect(res.headers.get('access-control-allow-methods')).toBe('POST,GET,HEAD');
    expect(res.headers.get('access-control-allow-headers')).toBe(
      'Authorization,Content-Type,Idempotency-Key,If-Match,X-Request-Id',
    );
    expect(res.headers.get('access-control-max-age')).toBe('600');
    expect(res.headers.get('allow')).toBe('POST, GET, HEAD');

    const graphql = await preflight('/graphql', SHOP, 'POST');
    expect(graphql.status).toBe(204);
    expect(graphql.headers.get('access-control-allow-methods')).toBe('GET,HEAD,POST');
  });

  it('when another origin sends a preflight or a request, then it gets no CORS headers', async () => {
    const pre = await preflight('/api/v1/items', OTHER);
    expect(pre.status).toBe(204);
    expect(pre.headers.get('access-control-allow-origin')).toBeNull();
    expect(pre.headers.get('access-control-allow-methods')).toBeNull();
    // The answer would differ for an allowed Origin: a shared cache must not hand this one to the shop.
    expect(pre.headers.get('vary')).toMatch(/\bOrigin\b/);
    const plain = await fetch(`${app.url}/api/v1/items`, { method: 'OPTIONS' });
    expect(plain.headers.get('vary')).toMatch(/\bOrigin\b/);
    const res = await fetch(`${app.url}/api/v1/items`, { headers: { origin: OTHER } });
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('when OPTIONS is sent without a preflight to a known path, then 204 with Allow; to an unknown path, 404', async () => {
    const known = await fetch(`${app.url}/api/v1/items/1`, { method: 'OPTIONS' });
    expect(known.status).toBe(204);
    expect(known.headers.get('allow')).toBe('GET, HEAD');
    const unknown = await fetch(`${app.url}/api/v1/nothing`, { method: 'OPTIONS', headers: { origin: SHOP } });
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  });

  it('when CORS_ORIGINS is *, then any origin is echoed; in production without it, none is', async () => {
    const open = await startTestApp({ CORS_ORIGINS: '*' });
    const closed = await startTestApp({ NODE_ENV: 'production' });
    try {
      const a = await fetch(`${open.url}/api/v1/categories`, { headers: { origin: OTHER } });
      expect(a.headers.get('access-control-allow-origin')).toBe(OTHER);
      const b = await fetch(`${closed.url}/api/v1/categories`, { headers: { origin: SHOP } });
      expect(b.headers.get('access-control-allow-origin')).toBeNull();
    } finally {
      await open.close();
      await closed.close();
    }
  });
});

describe('headers on every answer', () => {
  it('when anything answers (success, problem, probe, preflight), then nosniff and no-referrer are set', async () => {
    const answers = await Promise.all([
      fetch(`${app.url}/api/v1/categories`),
      fetch(`${app.url}/nowhere`),
      fetch(`${app.url}/healthz`),
      preflight('/api/v1/items', SHOP),
      fetch(`${app.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"query":"{ categories { id } }"}',
      }),
    ]);
    for (const res of answers) {
      expect(res.headers.get('x-content-type-options'), res.url).toBe('nosniff');
      expect(res.headers.get('referrer-policy'), res.url).toBe('no-referrer');
      expect(res.headers.get('x-powered-by')).toBeNull();
    }
  });

  it('when /docs or GraphiQL is opened, then the page forbids inline scripts, other origins and framing', async () => {
    for (const [path, accept] of [
      ['/docs', 'text/html'],
      ['/graphql', 'text/html'],
    ] as const) {
      const res = await fetch(app.url + path, { headers: { accept } });
      expect(res.status, path).toBe(200);
      const csp = res.headers.get('content-security-policy') ?? '';
      expect(csp).toContain("default-src 'self'");
      expect(csp).toContain("script-src 'self'");
      expect(csp).not.toMatch(/script-src[^;]*unsafe-inline/);
      expect(csp).toContain("frame-ancestors 'none'");
      // A document's isolation and legacy-browser headers, which a JSON answer goes without.
      expect(res.headers.get('cross-origin-opener-policy'), path).toBe('same-origin');
      expect(res.headers.get('origin-agent-cluster'), path).toBe('?1');
      expect(res.headers.get('x-dns-prefetch-control'), path).toBe('off');
      expect(res.headers.get('x-frame-options'), path).toBe('DENY');
      // No inline script: every <script> loads a file from this origin.
      const html = await res.text();
      for (const tag of html.match(/<script[^>]*>[\s\S]*?<\/script>/g) ?? [])
        expect(tag, path).toMatch(/^<script src="\//);
    }
  });

  it('when a JSON answer is served, then it carries no Content-Security-Policy or other header of a page', async () => {
    const res = await fetch(`${app.url}/api/v1/categories`);
    expect(res.headers.get('content-security-policy')).toBeNull();
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    expect(res.headers.get('cross-origin-resource-policy')).toBe('cross-origin');
    for (const page of [
      'cross-origin-opener-policy',
      'origin-agent-cluster',
      'x-dns-prefetch-control',
      'x-xss-protection',
    ])
      expect(res.headers.get(page), page).toBeNull();
  });

  it("when GraphiQL's assets are fetched, then they come from this origin, hashed and cacheable for good", async () => {
    const html = await (await fetch(`${app.url}/graphql`, { headers: { accept: 'text/html' } })).text();
    const urls = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    expect(urls.length).toBeGreaterThanOrEqual(3);
    for (const url of urls.filter((u) => u.startsWith('/graphql/assets/'))) {
      const res = await fetch(app.url + url);
      expect(res.status, url).toBe(200);
      expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    }
  });
});
