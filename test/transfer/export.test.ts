/**
 * Contract §13.3 (with the files of §13.1): GET /admin/api/exports/items streams every item the admin
 * list's filters match, with all its SKUs, in id order, as CSV or JSON Lines — read a batch at a time
 * and written at the client's pace; the same rules of access and input as GET /admin/api/items; a
 * failure after the first bytes breaks the transfer off. `npm run cli -- export` writes the same bytes.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminItemFilterOf } from '../../src/catalog/item-admin.service.ts';
import type { SqlDriver } from '../../src/db/database.ts';
import { createLogger } from '../../src/logger.ts';
import { operatorContext } from '../../src/request-context.ts';
import { exportInputOf } from '../../src/transfer/export.schema.ts';
import { EXPORT_BATCH, prepareItemExport } from '../../src/transfer/export.service.ts';
import { pacedWriter, SinkClosedError } from '../../src/transfer/paced-writer.ts';
import { expectProblem, loginAsAdmin, loginAsCustomer, makeAdmin, makeCustomer } from '../helpers/accounts.ts';
import { loadItem, makeCategory, makeItem, type StoredItem } from '../helpers/catalog.ts';
import { cliOn } from '../helpers/cli.ts';
import { documentOf, expectDocumentedResponse } from '../helpers/openapi.ts';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';
import { createApiKeyAs } from '../helpers/trust.ts';

const EXPORT_PATH = '/admin/api/exports/items';
const ADMIN_PASSWORD = 'admin-password-123';

let app: TestApp;
let owner: string;
let viewer: string;
let shoes: { id: number };
let running: { id: number };
let bags: { id: number };
let runner: StoredItem;
let bag: StoredItem;
let oldShoe: StoredItem;

async function tokenOf(role: 'catalog_manager' | 'viewer' | 'support'): Promise<string> {
  const admin = await makeAdmin(app, { role, password: ADMIN_PASSWORD });
  return loginAsAdmin(app, { username: admin.username, password: ADMIN_PASSWORD });
}

/** An item as makeItem writes it, then given the §12 fields makeItem leaves at their defaults. */
async function itemWith(
  spec: Parameters<typeof makeItem>[1],
  fields: { handle: string; status?: 'draft' | 'active' | 'archived'; publishAt?: string; unpublishAt?: string },
): Promise<StoredItem> {
  const item = await makeItem(app, spec);
  await app.db.prisma.item.update({ where: { id: item.id }, data: fields });
  return loadItem(app, item.id);
}

beforeAll(async () => {
  app = await startTestApp({ LOGIN_IP_PER_MINUTE: '1000' });
  owner = await loginAsAdmin(app);
  viewer = await tokenOf('viewer');
  shoes = await makeCategory(app, { name: 'Shoes' });
  running = await makeCategory(app, { name: 'Running', parentId: shoes.id });
  bags = await makeCategory(app, { name: 'Bags' });
  // Several SKUs with specs, code-less ones (one without specs), images, a schedule, a line break,
  // quotes and a comma in the description, Chinese in the name.
  runner = await itemWith(
    {
      categoryId: running.id,
      name: '轻量跑鞋 Trail',
      description: 'Light, "fast"\nfor wet days',
      price: '19.90',
      stock: 10,
      skus: [
        { skuCode: 'TR-RED-42', specs: { color: 'red', size: '42' }, price: '21.50', stock: 3 },
        { skuCode: null, specs: { color: 'blue' }, stock: 0 },
        { skuCode: null, specs: {}, stock: 5 },
      ],
      images: ['https://cdn.example.com/tr-1.jpg', 'https://cdn.example.com/tr-2.jpg'],
    },
    { handle: 'trail-runner', publishAt: '2026-01-01T08:00:00.000Z', unpublishAt: '2030-06-30T23:59:59.999Z' },
  );
  bag = await itemWith(
    { categoryId: bags.id, name: 'Canvas bag', price: '5.00', stock: 0 },
    {
      handle: 'canvas-bag',
      status: 'draft',
    },
  );
  oldShoe = await itemWith(
    {
      categoryId: shoes.id,
      name: 'Old shoe',
      price: '120.00',
      stock: 1,
      skus: [{ skuCode: 'OLD-1', specs: { material: 'leather' }, price: '99.00', stock: 1 }],
    },
    { handle: 'old-shoe', status: 'archived' },
  );
});
afterAll(() => app.close());

/** A download: the body's bytes as sent (a byte order mark included), its text, its head. */
async function download(query = '', token: string | undefined = owner, method = 'GET') {
  const res = await fetch(`${app.url}${EXPORT_PATH}${query}`, {
    method,
    headers: token ? { authorization: `Bearer ${token}` } : {},
  });
  const bytes = Buffer.from(await res.arrayBuffer());
  const text = bytes.toString('utf8');
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status: res.status, headers: res.headers, bytes, text, body };
}

const CRLF = '\r\n';
const BOM = '\uFEFF';
const HEADER =
  'handle,name,description,category,status,publish_at,unpublish_at,price,stock,images,sku_code,sku_price,sku_stock';

/** The small catalogue's rows, by item, under the header with spec:color, spec:material, spec:size. */
const ROWS = {
  runner: [
    'trail-runner,轻量跑鞋 Trail,"Light, ""fast""\nfor wet days",Shoes > Running,active,2026-01-01T08:00:00.000Z,' +
      '2030-06-30T23:59:59.999Z,19.90,10,https://cdn.example.com/tr-1.jpg | https://cdn.example.com/tr-2.jpg,' +
      'TR-RED-42,21.50,3,red,,42',
    'trail-runner,,,,,,,,,,,19.90,0,blue,,',
    'trail-runner,,,,,,,,,,,19.90,5,,,',
  ],
  bag: ['canvas-bag,Canvas bag,,Bags,draft,,,5.00,0,,,,,,,'],
  oldShoe: ['old-shoe,Old shoe,,Shoes,archived,,,120.00,1,,OLD-1,99.00,1,,leather,'],
};

/** The bag's row under a header without spec columns. */
const BAG_ALONE = 'canvas-bag,Canvas bag,,Bags,draft,,,5.00,0,,,,';

/** A CSV file as the export writes it: BOM, header, rows, each ended by CRLF. */
const csvFile = (header: string, rows: string[]) => BOM + [header, ...rows].map((r) => r + CRLF).join('');

/** The JSON Lines item of a stored item (contract §13.1: the admin Item's REST names, `category` a path). */
function jsonItemOf(item: StoredItem, category: string) {
  return {
    id: item.id,
    handle: item.handle,
    name: item.name,
    description: item.description,
    category,
    status: item.status,
    publish_at: item.publishAt?.toISOString() ?? null,
    unpublish_at: item.unpublishAt?.toISOString() ?? null,
    price: Number(item.price),
    stock: item.stock,
    skus: item.skus.map((s) => ({
      id: s.id,
      sku_code: s.skuCode,
      specs: s.specs,
      price: Number(s.price),
      stock: s.stock,
    })),
    images: item.images.map((m) => ({ id: m.id, url: m.url, sort_order: m.sortOrder })),
    version: item.version,
    created_at: item.createdAt.toISOString(),
    updated_at: item.updatedAt.toISOString(),
  };
}

/** Today and tomorrow (UTC), so a download around midnight names either day. */
const days = () => {
  const now = Date.now();
  return [new Date(now).toISOString().slice(0, 10), new Date(now + 60_000).toISOString().slice(0, 10)];
};

/** The handles of a CSV's rows, in order (the header aside). */
const handlesOf = (csv: string) =>
  csv
    .replace(BOM, '')
    .split(CRLF)
    .slice(1, -1)
    .filter((line) => /^[a-z0-9-]+,/.test(line))
    .map((line) => line.slice(0, line.indexOf(',')));

describe('the files (contract §13.1, §13.3)', () => {
  it('when the catalogue is exported as CSV, then every item and SKU is a row in id order, item fields on its first row only', async () => {
    const res = await download();
    expect(res.status, res.text).toBe(200);
    expect(res.text).toBe(
      csvFile(`${HEADER},spec:color,spec:material,spec:size`, [...ROWS.runner, ...ROWS.bag, ...ROWS.oldShoe]),
    );
    expect([...res.bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(res.headers.get('cache-control')).toBe('no-store');
    const [today, soon] = days();
    expect([`attachment; filename="items-${today}.csv"`, `attachment; filename="items-${soon}.csv"`]).toContain(
      res.headers.get('content-disposition'),
    );
  });

  it('when no format is given or format=csv, then the bytes are the same', async () => {
    expect((await download('?format=csv')).bytes.equals((await download()).bytes)).toBe(true);
  });

  it('when the catalogue is exported as JSON Lines, then one admin Item per line, in id order, with its category path', async () => {
    const res = await download('?format=jsonl');
    expect(res.status, res.text).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/x-ndjson');
    expect(res.headers.get('content-disposition')).toMatch(/^attachment; filename="items-\d{4}-\d{2}-\d{2}\.jsonl"$/);
    expect(res.text.endsWith('\n')).toBe(true);
    const lines = res.text.slice(0, -1).split('\n');
    expect(lines.map((line) => JSON.parse(line))).toEqual([
      jsonItemOf(await loadItem(app, runner.id), 'Shoes > Running'),
      jsonItemOf(await loadItem(app, bag.id), 'Bags'),
      jsonItemOf(await loadItem(app, oldShoe.id), 'Shoes'),
    ]);
    // Money as the admin Item has it: numbers, exact to the cent.
    expect(lines[0]).toContain('"price":19.9,');
    expect(lines[0]).toContain('"price":21.5,');
  });

  it('when the answer is checked against /openapi.json, then the route, its success and its problems are documented', async () => {
    await expectDocumentedResponse(app, 'GET', EXPORT_PATH, await app.request(EXPORT_PATH, { token: owner }));
    await expectDocumentedResponse(
      app,
      'GET',
      EXPORT_PATH,
      await app.request(`${EXPORT_PATH}?format=jsonl`, { token: owner }),
    );
    await expectDocumentedResponse(app, 'GET', EXPORT_PATH, await app.request(`${EXPORT_PATH}?format=xml`));
    await expectDocumentedResponse(
      app,
      'GET',
      EXPORT_PATH,
      await app.request(`${EXPORT_PATH}?format=xml`, { token: owner }),
    );
    const operation = (await documentOf(app)).paths[EXPORT_PATH].get;
    const names = operation.parameters.map((p: { name: string }) => p.name);
    // The list's filters as the list documents them, and the format; no paging, order or facets.
    expect(names).toEqual(
      expect.arrayContaining(['status', 'category_id', 'keyword', 'min_price', 'max_price', 'in_stock', 'spec']),
    );
    expect(names).toContain('format');
    for (const absent of ['page', 'limit', 'sort', 'facets']) expect(names).not.toContain(absent);
    expect(operation.description).toMatch(/^Roles: every admin role/);
    expect(
      operation.responses['400'].content['application/problem+json'].examples.VALIDATION_FAILED.value.errors,
    ).toEqual([
      { field: 'format', message: 'must be one of csv, jsonl' },
      { field: 'category_id', message: expect.any(String) },
    ]);
  });
});

describe('filters: those of GET /admin/api/items', () => {
  it('when status is repeated, then only items in those states are exported', async () => {
    // The CSV's spec columns are those of the exported SKUs: a bag without SKUs has none.
    expect((await download('?status=draft')).text).toBe(csvFile(HEADER, [BAG_ALONE]));
    expect(handlesOf((await download('?status=archived&status=draft')).text)).toEqual(['canvas-bag', 'old-shoe']);
    expect((await download('?status=archived')).text).toBe(
      csvFile(`${HEADER},spec:material`, ['old-shoe,Old shoe,,Shoes,archived,,,120.00,1,,OLD-1,99.00,1,leather']),
    );
  });

  it('when category_id names a category, then its items and its sub-categories’ are exported', async () => {
    expect(handlesOf((await download(`?category_id=${shoes.id}`)).text)).toEqual([
      'trail-runner',
      'trail-runner',
      'trail-runner',
      'old-shoe',
    ]);
    expect(handlesOf((await download(`?category_id=${running.id}&format=csv`)).text)).toEqual(
      Array(3).fill('trail-runner'),
    );
  });

  it('when a keyword, a spec, a price range or in_stock is given, then the list’s rule decides', async () => {
    const ids = async (query: string) =>
      (await download(`${query}&format=jsonl`)).text
        .trim()
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l).id);
    expect(await ids('?keyword=trail')).toEqual([runner.id]);
    expect(await ids('?keyword=%E8%B7%91%E9%9E%8B')).toEqual([runner.id]);
    expect(await ids('?spec=color:BLUE')).toEqual([runner.id]);
    expect(await ids('?min_price=100')).toEqual([oldShoe.id]);
    expect(await ids('?max_price=19.90')).toEqual([runner.id, bag.id]);
    expect(await ids('?in_stock=true')).toEqual([runner.id, oldShoe.id]);
    expect(await ids('?keyword=no-such-thing-anywhere')).toEqual([]);
  });

  it('when nothing matches, then the CSV is its header alone', async () => {
    expect((await download('?keyword=no-such-thing-anywhere')).text).toBe(csvFile(HEADER, []));
    expect((await download('?keyword=no-such-thing-anywhere&format=jsonl')).text).toBe('');
  });

  it('when page, limit or sort are sent, then they change nothing (an export is every match, by id)', async () => {
    const all = await download();
    expect((await download('?page=0&limit=1&sort=price_desc')).bytes.equals(all.bytes)).toBe(true);
  });
});

describe('bad input (contract §2)', () => {
  it('when format is unknown, then 400 VALIDATION_FAILED on format, no-store and no attachment', async () => {
    const res = await download('?format=xlsx');
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(res.body).toMatchObject({ code: 'VALIDATION_FAILED', errors: [{ field: 'format' }] });
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('content-disposition')).toBeNull();
  });

  it('when several filters are bad, then one 400 names each as the list does', async () => {
    const query = '?format=pdf&category_id=abc&min_price=-1&status=draft&status=gone&spec=color&in_stock=maybe';
    const res = await app.request(`${EXPORT_PATH}${query}`, { token: owner });
    expectProblem(res, 400, 'VALIDATION_FAILED');
    expect(res.body.errors.map((e: { field: string }) => e.field).sort()).toEqual(
      ['category_id', 'format', 'in_stock', 'min_price', 'spec', 'status[1]'].sort(),
    );
    // The list answers the same problems for the same filters.
    const list = await app.request(`/admin/api/items${query.replace('format=pdf&', '')}`, { token: owner });
    expect(list.body.errors).toEqual(res.body.errors.filter((e: { field: string }) => e.field !== 'format'));
  });

  it('when min_price is above max_price, then 400 on min_price', async () => {
    const res = await app.request(`${EXPORT_PATH}?min_price=10&max_price=5`, { token: owner });
    expectProblem(res, 400, 'VALIDATION_FAILED');
    expect(res.body.errors).toEqual([{ field: 'min_price', message: 'must not be greater than the maximum price' }]);
  });

  it('when another method is used, then 405 with Allow: GET, HEAD; HEAD answers the head without a body', async () => {
    const post = await app.request(EXPORT_PATH, { method: 'POST', token: owner, body: {} });
    expectProblem(post, 405, 'METHOD_NOT_ALLOWED');
    expect(post.headers.get('allow')).toBe('GET, HEAD');
    const head = await download('?format=jsonl', owner, 'HEAD');
    expect(head.status).toBe(200);
    expect(head.headers.get('content-type')).toBe('application/x-ndjson');
    expect(head.headers.get('content-disposition')).toMatch(/\.jsonl"$/);
    expect(head.bytes.length).toBe(0);
  });
});

describe('who may export (contract §10.1, §13.3: catalogRead)', () => {
  it('when there is no token, then 401 UNAUTHENTICATED for the admin realm, before the input is read', async () => {
    const res = await app.request(`${EXPORT_PATH}?format=xml`);
    expectProblem(res, 401, 'UNAUTHENTICATED');
    expect(res.headers.get('www-authenticate')).toBe('Bearer realm="admin"');
    expect(res.headers.get('content-disposition')).toBeNull();
  });

  it('when a customer token is sent, then 401 TOKEN_INVALID', async () => {
    const customer = await makeCustomer(app);
    const token = await loginAsCustomer(app, customer.username!);
    expectProblem(await app.request(EXPORT_PATH, { token }), 401, 'TOKEN_INVALID');
  });

  it('when any admin role or an API key exports, then it gets the file (every role holds catalogRead)', async () => {
    const key = await createApiKeyAs(app, owner, { name: 'ERP export', role: 'viewer' });
    const expected = (await download()).bytes;
    for (const token of [viewer, await tokenOf('support'), await tokenOf('catalog_manager'), key.secret]) {
      const res = await download('', token);
      expect(res.status, res.text).toBe(200);
      expect(res.bytes.equals(expected)).toBe(true);
    }
  });

  it('when ADMIN_REQUIRE_TOTP is on and the admin has no two-factor login, then 403 FORBIDDEN', async () => {
    const strict = await startTestApp({ ADMIN_REQUIRE_TOTP: 'true' });
    try {
      const token = await loginAsAdmin(strict);
      const res = await strict.request(EXPORT_PATH, { token });
      expectProblem(res, 403, 'FORBIDDEN');
      expect(res.headers.get('content-disposition')).toBeNull();
    } finally {
      await strict.close();
    }
  });
});

/** Inserts `count` items in `categoryId`, each with two SKUs (one sized), in three statements. */
async function makeManyItems(categoryId: number, count: number): Promise<number[]> {
  await app.db.prisma.item.createMany({
    data: Array.from({ length: count }, (_, i) => ({ name: `Bulk ${i + 1}`, categoryId, price: '1.00', stock: 1 })),
  });
  await app.db.sql.query(
    `INSERT INTO skus (item_id, sku_code, specs, price, stock)
     SELECT id, 'B' || id || '-' || n, CASE WHEN n = 1 THEN jsonb_build_object('size', (id % 3)::text) ELSE '{}' END,
            1.00, n
       FROM items CROSS JOIN generate_series(1, 2) n WHERE category_id = $1`,
    [categoryId],
  );
  const rows = await app.db.prisma.item.findMany({
    where: { categoryId },
    select: { id: true },
    orderBy: { id: 'asc' },
  });
  return rows.map((r) => r.id);
}

/** Replaces `app.db.sql.query` while `fn` runs: `hook` sees each statement first (it may delay or throw). */
async function withStatements<T>(hook: (text: string) => void | Promise<void>, fn: () => Promise<T>): Promise<T> {
  const sql = app.db.sql as { query: SqlDriver['query'] };
  const original = sql.query;
  sql.query = (async (text: string, params?: unknown[], options?: Parameters<SqlDriver['query']>[2]) => {
    await hook(text);
    return original.call(app.db.sql, text, params, options);
  }) as SqlDriver['query'];
  try {
    return await fn();
  } finally {
    sql.query = original;
  }
}

/** A statement that reads a batch of stored items (item-file.ts' STORED_ITEMS_SQL). */
const isItemBatch = (text: string) => text.includes("'categoryPath'");

describe('batches (memory flat: 1M items export like 1,000)', () => {
  let bulk: { id: number };
  let ids: number[];

  beforeAll(async () => {
    bulk = await makeCategory(app, { name: 'Bulk' });
    ids = await makeManyItems(bulk.id, 2_500);
  });

  it('when 2,500 items are exported, then they are read in batches and each item is in the file exactly once, in id order', async () => {
    let batches = 0;
    const jsonl = await withStatements(
      (text) => void (isItemBatch(text) && batches++),
      () => download(`?category_id=${bulk.id}&format=jsonl`),
    );
    expect(batches).toBe(Math.ceil(ids.length / EXPORT_BATCH));
    const lines = jsonl.text
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => l.id)).toEqual(ids);
    expect(lines.every((l) => l.skus.length === 2 && l.category === 'Bulk')).toBe(true);

    const csv = await download(`?category_id=${bulk.id}`);
    const rows = csv.text.replace(BOM, '').split(CRLF).slice(0, -1);
    expect(rows[0]).toBe(`${HEADER},spec:size`);
    expect(rows).toHaveLength(1 + 2 * ids.length);
    // Items across batch boundaries (the 500th and 501st …) are there, each with both SKUs, in order.
    const handles = await app.db.prisma.item.findMany({
      where: { categoryId: bulk.id },
      orderBy: { id: 'asc' },
      select: { handle: true },
    });
    expect(handlesOf(csv.text)).toEqual(handles.flatMap((h) => [h.handle, h.handle]));
  });

  it('when the reader stops taking data, then no further batch is read; when it closes, then the export stops', async () => {
    const ctx = operatorContext(app.db, app.services, createLogger('silent'));
    const filter = await adminItemFilterOf(
      ctx,
      exportInputOf({ status: [], spec: [], category_id: String(bulk.id) }).filters,
    );
    const file = await prepareItemExport(app.db.sql, filter, 'jsonl');
    // A reader that takes one chunk and never asks for more.
    const stuck = new Writable({ highWaterMark: 1, write: () => {} });
    let batches = 0;
    await withStatements(
      (text) => void (isItemBatch(text) && batches++),
      async () => {
        const writing = file.writeTo(pacedWriter(stuck));
        await new Promise((resolve) => setTimeout(resolve, 300));
        expect(batches).toBe(1);
        stuck.destroy();
        await expect(writing).rejects.toBeInstanceOf(SinkClosedError);
      },
    );
    expect(batches).toBe(1);
  });

  it('when the client disconnects during the download, then the export stops reading', async () => {
    let batches = 0;
    await withStatements(
      async (text) => {
        if (!isItemBatch(text)) return;
        batches++;
        // Slow batches, so the client is gone long before the last one.
        await new Promise((resolve) => setTimeout(resolve, 100));
      },
      async () => {
        await new Promise<void>((resolve, reject) => {
          const req = httpRequest(`${app.url}${EXPORT_PATH}?category_id=${bulk.id}&format=jsonl`, {
            headers: { authorization: `Bearer ${owner}` },
          });
          req.on('response', (res) => {
            // Destroying the request aborts its answer, which then reports it.
            res.on('error', () => {});
            res.once('data', () => {
              req.destroy();
              resolve();
            });
          });
          req.on('error', (err) => (req.destroyed ? undefined : reject(err)));
          req.end();
        });
        await new Promise((resolve) => setTimeout(resolve, 600));
      },
    );
    expect(batches).toBeGreaterThanOrEqual(1);
    expect(batches).toBeLessThan(Math.ceil(ids.length / EXPORT_BATCH));
  });

  it('when the database fails after the first bytes, then the transfer breaks off instead of ending a shorter file', async () => {
    let batches = 0;
    await withStatements(
      (text) => {
        if (isItemBatch(text) && ++batches === 3) throw new Error('the database went away mid-export');
      },
      async () => {
        const res = await fetch(`${app.url}${EXPORT_PATH}?category_id=${bulk.id}`, {
          headers: { authorization: `Bearer ${owner}` },
        });
        expect(res.status).toBe(200);
        await expect(res.arrayBuffer()).rejects.toThrow();
      },
    );
    // The service goes on serving.
    expect((await download(`?category_id=${running.id}`)).status).toBe(200);
  });

  it('when the database fails before the first bytes, then a problem answers (503 for an outage), not a file', async () => {
    const outage = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    const res = await withStatements(
      (text) => {
        if (text.includes('jsonb_object_keys')) throw outage;
      },
      () => download(`?category_id=${bulk.id}`),
    );
    expect(res.status).toBe(503);
    expect(res.body).toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
    expect(res.headers.get('content-disposition')).toBeNull();
  });

  it('when a SKU gains a spec name while a CSV export runs, then the transfer breaks off (its value would be lost)', async () => {
    let batches = 0;
    const [late] = ids.slice(-1);
    await withStatements(
      async (text) => {
        if (isItemBatch(text) && ++batches === 1) {
          await app.db.sql.query(`UPDATE skus SET specs = '{"colour": "teal"}' WHERE item_id = $1`, [late]);
        }
      },
      async () => {
        const res = await fetch(`${app.url}${EXPORT_PATH}?category_id=${bulk.id}`, {
          headers: { authorization: `Bearer ${owner}` },
        });
        expect(res.status).toBe(200);
        await expect(res.arrayBuffer()).rejects.toThrow();
      },
    );
    await app.db.sql.query(`UPDATE skus SET specs = '{}' WHERE item_id = $1`, [late]);
  });
});

describe('npm run cli -- export (contract §13.3)', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'export-cli-'));
  });

  it('when a CSV file is exported with filters, then it holds the bytes the route sends, and one line says what was written', async () => {
    const file = join(dir, 'shoes.csv');
    const result = await cliOn(app, ['export', file, '--category-id', String(shoes.id), '--status', 'active']);
    expect(result, result.stderr).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout).toBe(`exported 1 item(s) as 3 CSV row(s) and the header to ${file}\n`);
    const http = await download(`?category_id=${shoes.id}&status=active`);
    expect(readFileSync(file).equals(http.bytes)).toBe(true);
    expect(readdirSync(dir).filter((f) => f.endsWith('.part'))).toEqual([]);
  });

  it('when the file is named .jsonl, then it is JSON Lines unless --format says otherwise', async () => {
    const jsonl = join(dir, 'all.jsonl');
    const result = await cliOn(app, ['export', jsonl, '--keyword', 'shoe', '--status', 'archived']);
    expect(result.stdout).toBe(`exported 1 item(s) as 1 JSON line(s) to ${jsonl}\n`);
    expect(readFileSync(jsonl).equals((await download('?keyword=shoe&status=archived&format=jsonl')).bytes)).toBe(true);
    const forced = join(dir, 'forced.jsonl');
    expect((await cliOn(app, ['export', forced, '--format', 'csv', '--status', 'draft'])).code).toBe(0);
    expect(readFileSync(forced, 'utf8')).toBe(csvFile(HEADER, [BAG_ALONE]));
  });

  it('when --in-stock and --spec are given, then they filter as in_stock and spec do', async () => {
    const file = join(dir, 'blue.jsonl');
    expect((await cliOn(app, ['export', file, '--in-stock', '--spec', 'color:blue'])).code).toBe(0);
    expect(
      readFileSync(file, 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).id),
    ).toEqual([runner.id]);
  });

  it('when an option is unknown or lacks its value, then usage (exit 2); a bad value is named as its option (exit 1)', async () => {
    const file = join(dir, 'never.csv');
    expect((await cliOn(app, ['export', file, '--colour', 'red'])).code).toBe(2);
    expect((await cliOn(app, ['export', file, '--status'])).code).toBe(2);
    expect((await cliOn(app, ['export'])).code).toBe(2);
    const bad = await cliOn(app, ['export', file, '--category-id', 'x', '--status', 'gone', '--format', 'xls']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/^invalid input:/);
    for (const option of ['--format', '--status[0]', '--category-id']) expect(bad.stderr).toContain(`\n  ${option}: `);
    expect(existsSync(file)).toBe(false);
  });

  it('when the file cannot be written, then exit 1 with the reason, and nothing is left behind', async () => {
    const file = join(dir, 'no-such-dir', 'items.csv');
    const result = await cliOn(app, ['export', file]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^cannot write .*ENOENT/);
    expect(existsSync(join(dir, 'no-such-dir'))).toBe(false);
  });

  it('when the database fails mid-export, then no file is left, neither whole-looking nor partial', async () => {
    const file = join(dir, 'failed.csv');
    let batches = 0;
    await expect(
      withStatements(
        (text) => {
          if (isItemBatch(text) && ++batches === 2) throw new Error('the database went away mid-export');
        },
        () => cliOn(app, ['export', file]),
      ),
    ).rejects.toThrow('the database went away mid-export');
    expect(existsSync(file)).toBe(false);
    expect(existsSync(`${file}.part`)).toBe(false);
  });
});
