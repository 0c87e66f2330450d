/**
 * `GET /`, where a newcomer lands: the links to every tool as JSON for an API client (a page for a
 * browser: test/browser/browser.test.ts), the demo accounts' state in development only.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/service-process.ts';
import { startTestApp, TEST_ADMIN, type TestApp } from '../helpers/test-app.ts';

describe('the front page', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ NODE_ENV: 'development', SEED_DEMO: 'true' });
  });
  afterAll(() => app.close());

  it('when an API client asks for /, then it gets a JSON index of the tools and the demo accounts', async () => {
    const res = await app.request('/', { headers: { accept: 'application/json' } });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body.links)).toEqual(['docs', 'graphql', 'openapi', 'healthz', 'readyz', 'metrics']);
    expect(res.body.links.docs).toEqual({ href: '/docs', title: expect.stringContaining('REST reference') });
    expect(res.body.demo).toEqual({ admins: 1, items: expect.any(Number), bootstrapAdmin: TEST_ADMIN.username });
    expect(res.body.demo.items).toBeGreaterThan(0);
    for (const link of Object.values(res.body.links) as { href: string }[]) {
      expect((await app.request(link.href)).status, link.href).toBe(200);
    }
  });

  it('when a browser asks for /, then it gets an HTML page under the strict Content-Security-Policy', async () => {
    const res = await app.request('/', { headers: { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(res.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(res.text).not.toMatch(/<script/);
    for (const href of ['/docs', '/graphql', '/openapi.json', '/healthz', '/readyz', '/metrics']) {
      expect(res.text).toContain(`href="${href}"`);
    }
    expect(res.text).toContain('reset-password admin root');
  });

  it('when the page points at files of the repository, then each file and README section exists', async () => {
    const res = await app.request('/', { headers: { accept: 'text/html' } });
    const files = [...res.text.matchAll(/<code>(docs\/[\w-]+\.md)<\/code>/g)].map((m) => m[1]!);
    expect(files.length).toBeGreaterThan(5);
    for (const file of files) expect(existsSync(join(ROOT, file)), file).toBe(true);
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const sections = [...res.text.matchAll(/<em>([^<]+)<\/em>/g)].map((m) => m[1]!);
    expect(sections.length).toBeGreaterThan(0);
    for (const section of sections) expect(readme, section).toContain(`\n## ${section}\n`);
  });

  it('when it runs in production, then / names no accounts and links only what the main port serves', async () => {
    const prod = await startTestApp({ NODE_ENV: 'production' });
    try {
      const res = await prod.request('/', { headers: { accept: 'application/json' } });
      expect(res.status).toBe(200);
      expect(Object.keys(res.body.links)).toEqual(['docs', 'graphql', 'openapi', 'healthz', 'readyz']);
      expect(res.body.demo).toBeUndefined();
      expect((await prod.request('/', { method: 'POST' })).status).toBe(405);
    } finally {
      await prod.close();
    }
  });
});
