/**
 * Contract §7.6: catalogue answers carry a strong ETag (304 when it matches), Cache-Control from
 * CATALOG_MAX_AGE, and may come from a per-process cache that never hides a write: the instance that
 * wrote answers with the new data at once, every other instance within 1 s, and while the channel that
 * carries those changes is lost the cache is off.
 */
import http, { type IncomingHttpHeaders } from 'node:http';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loginAsAdmin } from '../helpers/accounts.ts';
import { makeCategory, makeItems } from '../helpers/catalog.ts';
import { UPDATE_ITEM } from '../helpers/catalog-admin.ts';
import { startTcpProxy } from '../helpers/tcp-proxy.ts';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';
import { TEST_DB } from '../helpers/test-database.ts';

const PATHS = ['/api/v1/items?limit=5', '/api/v1/categories'];

/** GETs `url` and resolves with the headers and the bytes exactly as sent. */
const rawGet = (url: string, headers: Record<string, string>) =>
  new Promise<{ headers: IncomingHttpHeaders; body: Buffer }>((resolve, reject) => {
    http
      .get(url, { headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ headers: res.headers, body: Buffer.concat(chunks) }));
      })
      .on('error', reject);
  });

/** Renames item `id` through GraphQL on `app` (an admin write) and resolves when it answered. */
async function rename(app: TestApp, token: string, id: number, name: string): Promise<number> {
  const res = await app.graphql(UPDATE_ITEM, { id, input: { name } }, { token });
  expect(res.body.errors, JSON.stringify(res.body.errors)).toBeUndefined();
  return Date.now();
}

/** Polls `read` until `seen` holds for its answer; resolves with the milliseconds it took from `since`. */
async function until(
  read: () => Promise<string>,
  seen: (v: string) => boolean,
  since: number,
  limitMs = 5_000,
): Promise<number> {
  for (;;) {
    const value = await read();
    if (seen(value)) return Date.now() - since;
    if (Date.now() - since > limitMs) throw new Error(`still "${value}" after ${limitMs} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('ETag, 304, Cache-Control and compression', () => {
  let app: TestApp;
  let itemPath: string;
  beforeAll(async () => {
    app = await startTestApp({ CATALOG_MAX_AGE: '60' });
    const category = await makeCategory(app);
    const [item] = await makeItems(app, category.id, 20);
    itemPath = `/api/v1/items/${item!.id}`;
  });
  afterAll(() => app.close());

  it('when a catalogue answer is fetched again with its ETag, then 304 with no body, cached or not', async () => {
    for (const path of [...PATHS, itemPath]) {
      const first = await fetch(app.url + path);
      const etag = first.headers.get('etag');
      // A strong validator per representation: fetch asks for gzip, so the tag names the coding.
      expect(etag, path).toMatch(/^"[A-Za-z0-9_-]{27}(-(br|gzip|deflate))?"$/);
      expect(first.headers.get('cache-control')).toBe('public, max-age=60');
      const again = await fetch(app.url + path, { headers: { 'if-none-match': etag! } });
      expect(again.status, path).toBe(304);
      expect(await again.text()).toBe('');
      expect(again.headers.get('etag')).toBe(etag);
      const other = await fetch(app.url + path, { headers: { 'if-none-match': '"something-else"' } });
      expect(other.status).toBe(200);
    }
  });

  it('when the catalogue changes, then the ETag changes', async () => {
    const before = (await fetch(app.url + itemPath)).headers.get('etag');
    await rename(app, await loginAsAdmin(app), Number(itemPath.split('/').pop()), 'Renamed for the ETag');
    const after = await fetch(app.url + itemPath);
    expect(after.headers.get('etag')).not.toBe(before);
    expect((await after.json()).name).toBe('Renamed for the ETag');
  });

  it('when the client accepts br or gzip, then a large answer is compressed and decodes to the same JSON', async () => {
    const plain = await (
      await fetch(`${app.url}/api/v1/items?limit=20`, { headers: { 'accept-encoding': 'identity' } })
    ).text();
    expect(plain.length).toBeGreaterThan(1024);
    for (const [encoding, decode] of [
      ['br', brotliDecompressSync],
      ['gzip', gunzipSync],
    ] as const) {
      // node:http, not fetch: fetch decodes by itself, and the raw bytes are what a client receives.
      const { headers, body } = await rawGet(`${app.url}/api/v1/items?limit=20`, { 'accept-encoding': encoding });
      expect(headers['content-encoding']).toBe(encoding);
      expect(headers.vary).toMatch(/Accept-Encoding/);
      expect(body.length).toBeLessThan(plain.length);
      expect(JSON.parse(decode(body).toString())).toEqual(JSON.parse(plain));
    }
  });

  it('when CATALOG_MAX_AGE is 0 (the default), then answers say no-cache and must be revalidated', async () => {
    const plain = await startTestApp();
    try {
      expect((await fetch(`${plain.url}/api/v1/categories`)).headers.get('cache-control')).toBe('no-cache');
    } finally {
      await plain.close();
    }
  });
});

describe('a write is never hidden', () => {
  let app: TestApp;
  let token: string;
  let ids: number[];
  beforeAll(async () => {
    app = await startTestApp();
    token = await loginAsAdmin(app);
    const category = await makeCategory(app);
    ids = (await makeItems(app, category.id, 3)).map((i) => i.id);
  });
  afterAll(() => app.close());

  it('when an admin writes, then this instance answers with the new data at once (detail, list, categories)', async () => {
    const id = ids[0]!;
    await app.request(`/api/v1/items/${id}`);
    await app.request('/api/v1/items');
    await rename(app, token, id, 'Fresh name');
    expect((await app.request(`/api/v1/items/${id}`)).body.name).toBe('Fresh name');
    expect((await app.request('/api/v1/items')).body.items.map((i: { name: string }) => i.name)).toContain(
      'Fresh name',
    );
    await app.request('/api/v1/categories');
    const created = await app.graphql(
      'mutation { createCategory(input: { name: "Brand new" }) { id } }',
      {},
      { token },
    );
    expect(created.body.errors).toBeUndefined();
    expect((await app.request('/api/v1/categories')).body.categories.map((c: { name: string }) => c.name)).toContain(
      'Brand new',
    );
  });

  it('when the cache is full of answers, then a repeated read is served without touching the database', async () => {
    const path = `/api/v1/items/${ids[1]}`;
    await app.catalogNotificationsHeard(); // the previous test's writes, heard before the cache fills
    await app.request(path);
    const before = app.db.statementCount();
    for (let i = 0; i < 5; i++) expect((await app.request(path)).status).toBe(200);
    expect(app.db.statementCount()).toBe(before);
  });

  it('when many ask at once for an answer not kept yet, then it is read once and each gets it', async () => {
    await app.catalogNotificationsHeard(); // earlier writes heard: the cache is on and empty of this page
    const path = '/api/v1/items?limit=3&sort=price_desc';
    const before = app.db.statementCount();
    const answers = await Promise.all(Array.from({ length: 20 }, () => app.request(path)));
    expect(app.db.statementCount() - before).toBe(1);
    expect(answers.map((a) => a.status)).toEqual(Array(20).fill(200));
    expect(new Set(answers.map((a) => a.text)).size).toBe(1);
  });

  it('when CATALOG_CACHE_MB is 0, then every read goes to the database', async () => {
    const off = await startTestApp({ CATALOG_CACHE_MB: '0' });
    try {
      await off.request('/api/v1/categories');
      const before = off.db.statementCount();
      await off.request('/api/v1/categories');
      expect(off.db.statementCount()).toBe(before + 1);
      // Nor shared between requests at once: with the cache off, each reads for itself.
      await Promise.all(Array.from({ length: 5 }, () => off.request('/api/v1/categories')));
      expect(off.db.statementCount()).toBe(before + 6);
    } finally {
      await off.close();
    }
  });
});

describe.skipIf(TEST_DB !== 'postgres')('two instances on one database', () => {
  let writer: TestApp;
  let reader: TestApp;
  let token: string;
  let id: number;
  beforeAll(async () => {
    writer = await startTestApp();
    reader = await startTestApp({}, { url: writer.databaseUrl! });
    token = await loginAsAdmin(writer);
    const category = await makeCategory(writer);
    id = (await makeItems(writer, category.id, 1))[0]!.id;
  });
  afterAll(async () => {
    await reader?.close();
    await writer?.close();
  });

  const nameOn = (app: TestApp) => async () => (await app.request(`/api/v1/items/${id}`)).body?.name as string;

  it('when one instance writes, then the other stops serving the old answer within 1 s', async () => {
    for (let n = 1; n <= 3; n++) {
      await nameOn(reader)(); // cached there
      const name = `Written on the other instance ${n}`;
      const since = await rename(writer, token, id, name);
      expect(await nameOn(writer)()).toBe(name);
      expect(await until(nameOn(reader), (v) => v === name, since)).toBeLessThan(1_000);
    }
  });

  it('when a SQL console changes an item, then every instance forgets its answer within 1 s', async () => {
    await nameOn(reader)();
    await nameOn(writer)();
    const console_ = new pg.Client({ connectionString: writer.databaseUrl });
    await console_.connect();
    try {
      await console_.query('UPDATE items SET name = $1 WHERE id = $2', ['Changed at the console', id]);
      const since = Date.now();
      for (const app of [reader, writer])
        expect(await until(nameOn(app), (v) => v === 'Changed at the console', since)).toBeLessThan(1_000);
    } finally {
      await console_.end();
    }
  });

  it('when an instance loses its notification channel, then it never serves an old answer for more than 1 s', async () => {
    const proxy = await startTcpProxy('127.0.0.1', Number(new URL(writer.databaseUrl!).port || 5432));
    const behind = await startTestApp(
      { DATABASE_STATEMENT_TIMEOUT: '1000' },
      { url: writer.databaseUrl!, viaPort: proxy.port },
    );
    try {
      const read = async () => {
        const res = await behind.request(`/api/v1/items/${id}`);
        return res.status === 200 ? (res.body.name as string) : `(${res.status})`;
      };
      const old = await read();
      expect(await read()).toBe(old); // cached
      proxy.silence();
      const since = await rename(writer, token, id, 'Written while the other was cut off');
      // From 1 s after the write on, the cut-off instance answers 503 (its database is silent) or the new
      // name — never the old one.
      await new Promise((r) => setTimeout(r, 1_000));
      for (let i = 0; i < 3; i++) expect(await read()).not.toBe(old);
      proxy.restore();
      expect(await until(read, (v) => v === 'Written while the other was cut off', since, 15_000)).toBeGreaterThan(0);
    } finally {
      proxy.restore();
      await behind.close();
      await proxy.close();
    }
  });
});
