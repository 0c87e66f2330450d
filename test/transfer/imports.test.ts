/**
 * Contract §13.1–13.2 through the real server: CSV and JSON Lines files in, items created, updated or
 * left unchanged, every problem named by row and column, dry runs and atomic imports that write
 * nothing they should not, the errors file, and the REST and GraphQL doors with their refusals.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ATOMIC_WRITE_LOCK } from '../../src/transfer/import-job.ts';
import { expectProblem, gqlCode, loginAsAdmin, makeAdmin } from '../helpers/accounts.ts';
import { lockWaiters } from '../helpers/lock-waiters.ts';
import { startTestApp, TEST_ADMIN, type TestApp } from '../helpers/test-app.ts';
import { TEST_DB } from '../helpers/test-database.ts';
import { csv, type ImportAnswer, ITEM_FILE_HEADER, importEnded, runImport, sendImport } from './import-helpers.ts';

let app: TestApp;
let owner: string;
let viewer: string;

beforeAll(async () => {
  app = await startTestApp({ LOGIN_IP_PER_MINUTE: '1000', IMPORT_MAX_BYTES: String(256 * 1024) });
  owner = await loginAsAdmin(app);
  const admin = await makeAdmin(app, { role: 'viewer', password: 'viewer-password-1' });
  viewer = await loginAsAdmin(app, { username: admin.username, password: 'viewer-password-1' });
});
afterAll(() => app?.close());

/** The admin Item with this handle (any state). */
async function itemByHandle(handle: string) {
  const res = await app.graphql(
    `query($h: String) { adminItem(handle: $h) { id name description status price stock version handle
       category { name parentId } skus { id skuCode specs price stock } images { url sortOrder } } }`,
    { h: handle },
    { token: owner },
  );
  return res.body.data.adminItem;
}

const auditOf = async (importId: number) =>
  app.db.prisma.auditEntry.findMany({ where: { requestId: String(importId) }, orderBy: { id: 'asc' } });

describe('CSV import (contract §13.1, §13.2)', () => {
  it('when a file names new handles, then they are created as drafts with their SKUs, images and a new category path, each audited under the import’s id', async () => {
    const file = csv([
      ITEM_FILE_HEADER,
      [
        'csv-boot',
        'Trail boot',
        'Outdoor > Boots',
        '19.9',
        5,
        'https://cdn.example.com/a.jpg | https://cdn.example.com/b.jpg',
        'CB-RED',
        '',
        3,
        'red',
      ],
      ['other-tee', 'Tee', 'Outdoor', '9', 1, '', '', '', '', ''],
      // Rows of one item need not be adjacent.
      ['csv-boot', '', '', '', '', '', 'CB-BLUE', '21.50', 2, 'blue'],
    ]);
    const done = await runImport(app, owner, file);
    expect(done).toMatchObject({
      status: 'succeeded',
      rows_total: 3,
      rows_done: 3,
      items: { created: 2, updated: 0, unchanged: 0, failed: 0 },
      errors: [],
      format: 'csv',
      mode: 'upsert',
      dry_run: false,
      atomic: false,
      actor: { type: 'admin', name: 'root' },
    });
    expect(done.finished_at).toEqual(expect.any(String));
    const boot = await itemByHandle('csv-boot');
    expect(boot).toMatchObject({
      name: 'Trail boot',
      status: 'draft',
      price: 19.9,
      stock: 5,
      version: 1,
      category: { name: 'Boots' },
      images: [
        { url: 'https://cdn.example.com/a.jpg', sortOrder: 0 },
        { url: 'https://cdn.example.com/b.jpg', sortOrder: 1 },
      ],
    });
    expect(
      boot.skus.map((s: { skuCode: string; price: number; stock: number; specs: object }) => [
        s.skuCode,
        s.price,
        s.stock,
        s.specs,
      ]),
    ).toEqual([
      ['CB-RED', 19.9, 3, { color: 'red' }],
      ['CB-BLUE', 21.5, 2, { color: 'blue' }],
    ]);
    expect((await itemByHandle('other-tee')).skus).toEqual([]);
    const audit = await auditOf(done.id);
    expect(audit.map((e) => e.action).sort()).toEqual([
      'category.create',
      'category.create',
      'item.create',
      'item.create',
    ]);
    // Drafts are not public.
    expect((await app.request('/api/v1/items?keyword=Trail%20boot')).body.total).toBe(0);
  });

  it('when the same item is created by a file and through the API, then their audit entries record the same fields alike (the batch describes the snapshot in JS, catalog-write.ts in SQL)', async () => {
    const done = await runImport(
      app,
      owner,
      csv([
        [
          'handle',
          'name',
          'description',
          'category',
          'price',
          'stock',
          'status',
          'publish_at',
          'images',
          'sku_code',
          'sku_price',
          'sku_stock',
          'spec:color',
        ],
        [
          'audit-twin-file',
          'Audit twin',
          'Both ways',
          'Outdoor',
          '12.30',
          4,
          'active',
          '2030-01-02T03:04:05.000Z',
          'https://cdn.example.com/t.jpg',
          'AT-F',
          '9.99',
          2,
          'red',
        ],
      ]),
    );
    expect(done.items.created).toBe(1);
    const fromFile = await itemByHandle('audit-twin-file');
    const res = await app.request('/admin/api/items', {
      method: 'POST',
      token: owner,
      body: {
        handle: 'audit-twin-api',
        name: 'Audit twin',
        description: 'Both ways',
        category_id: (await app.db.prisma.item.findUniqueOrThrow({ where: { id: fromFile.id } })).categoryId,
        price: 12.3,
        stock: 4,
        status: 'active',
        publish_at: '2030-01-02T03:04:05.000Z',
        images: [{ url: 'https://cdn.example.com/t.jpg', sort_order: 0 }],
        skus: [{ sku_code: 'AT-A', price: 9.99, stock: 2, specs: { color: 'red' } }],
      },
    });
    expect(res.status, res.text).toBe(201);
    const [fileEntry] = (await auditOf(done.id)).filter((e) => e.action === 'item.create');
    const apiEntry = await app.db.prisma.auditEntry.findFirstOrThrow({
      where: { action: 'item.create', targetId: res.body.id },
    });
    // The same changes, as JSON, but for what differs on purpose: the handle and the SKU's code.
    const alike = (changes: unknown) =>
      JSON.parse(
        JSON.stringify(changes)
          .replaceAll(/audit-twin-(file|api)/g, 'H')
          .replaceAll(/AT-[FA]/g, 'C'),
      );
    expect(alike(fileEntry!.changes)).toEqual(alike(apiEntry.changes));
    expect(Object.keys(fileEntry!.changes as object).sort()).toEqual(
      ['categoryId', 'description', 'handle', 'images', 'name', 'price', 'publishAt', 'skus', 'status', 'stock'].sort(),
    );
  });

  it('when the same file is imported again, then every item is unchanged: no version, audit entry or write', async () => {
    const file = csv([ITEM_FILE_HEADER, ['same-boot', 'Same boot', 'Outdoor', '10', 1, '', 'SB-1', '', 1, 'red']]);
    await runImport(app, owner, file);
    const before = await itemByHandle('same-boot');
    const again = await runImport(app, owner, file);
    expect(again.items).toEqual({ created: 0, updated: 0, unchanged: 1, failed: 0 });
    expect(await auditOf(again.id)).toEqual([]);
    expect(await itemByHandle('same-boot')).toEqual(before);
  });

  it('when a file changes an item, then it is updated at its next version; SKUs are matched by code (their ids stay), others replaced', async () => {
    await runImport(
      app,
      owner,
      csv([
        ITEM_FILE_HEADER,
        ['match-boot', 'Match boot', 'Outdoor', '10', 1, '', 'MB-1', '', 1, 'red'],
        ['match-boot', '', '', '', '', '', 'MB-2', '', 2, 'blue'],
      ]),
    );
    const before = await itemByHandle('match-boot');
    const done = await runImport(
      app,
      owner,
      csv([
        ITEM_FILE_HEADER,
        ['match-boot', 'Match boot', 'Outdoor', '12', 1, '', 'MB-2', '', 7, 'blue'],
        ['match-boot', '', '', '', '', '', 'MB-3', '', 3, 'green'],
      ]),
    );
    expect(done.items).toEqual({ created: 0, updated: 1, unchanged: 0, failed: 0 });
    const after = await itemByHandle('match-boot');
    expect(after.version).toBe(before.version + 1);
    expect(after.price).toBe(12);
    const mb2Before = before.skus.find((s: { skuCode: string }) => s.skuCode === 'MB-2');
    const mb2After = after.skus.find((s: { skuCode: string }) => s.skuCode === 'MB-2');
    expect(mb2After).toMatchObject({ id: mb2Before.id, stock: 7 });
    expect(after.skus.map((s: { skuCode: string }) => s.skuCode).sort()).toEqual(['MB-2', 'MB-3']);
    const [entry] = await auditOf(done.id);
    expect(entry).toMatchObject({ action: 'item.update', targetId: after.id });
    expect((entry!.changes as Record<string, unknown>).price).toEqual([10, 12]);
  });

  it('when a file lacks a column, then that field is kept; when a cell is empty, then the field is cleared or set to its default', async () => {
    await runImport(
      app,
      owner,
      csv([
        ['handle', 'name', 'description', 'category', 'price', 'stock', 'status'],
        ['keep-boot', 'Keep boot', 'Warm and dry', 'Outdoor', '30', 4, 'active'],
      ]),
    );
    const done = await runImport(
      app,
      owner,
      csv([
        ['handle', 'price', 'description'],
        ['keep-boot', '31', ''],
      ]),
    );
    expect(done.items.updated).toBe(1);
    expect(await itemByHandle('keep-boot')).toMatchObject({
      name: 'Keep boot',
      status: 'active',
      price: 31,
      stock: 4,
      description: '',
    });
  });

  it('when a later row repeats an item field with another value, then that row is named and the item is not written', async () => {
    const done = await runImport(
      app,
      owner,
      csv([
        ITEM_FILE_HEADER,
        ['clash-boot', 'Clash boot', 'Outdoor', '10', 1, '', 'CL-1', '', 1, 'red'],
        ['clash-boot', 'Another name', '', '', '', '', 'CL-2', '', 1, 'blue'],
      ]),
    );
    expect(done.items).toEqual({ created: 0, updated: 0, unchanged: 0, failed: 1 });
    expect(done.errors).toEqual([
      {
        row: 3,
        handle: 'clash-boot',
        field: 'name',
        message: expect.stringContaining('differs from the item’s first row'.replace('’', "'")),
      },
    ]);
    expect(await itemByHandle('clash-boot')).toBeNull();
  });

  it('when items break the rules of every item write, then each problem names its row and column, the others are written, and the errors file has every failed row', async () => {
    const done = await runImport(
      app,
      owner,
      csv([
        ITEM_FILE_HEADER,
        ['good-one', 'Good one', 'Outdoor', '5', 1, '', '', '', '', ''],
        ['bad-price', 'Bad price', 'Outdoor', 'abc', 1, '', '', '', '', ''],
        ['bad-sku', 'Bad sku', 'Outdoor', '5', 1, '', 'BS-1', '', '-3', 'red'],
        ['', 'No handle', 'Outdoor', '5', 1, '', '', '', '', ''],
        ['no-category', 'No category', '', '5', 1, 'ftp://not-http', '', '', '', ''],
      ]),
    );
    expect(done.status).toBe('succeeded');
    expect(done.items).toEqual({ created: 1, updated: 0, unchanged: 0, failed: 4 });
    expect(done.errors).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ row: 3, handle: 'bad-price', field: 'price' }),
        expect.objectContaining({ row: 4, handle: 'bad-sku', field: 'sku_stock' }),
        expect.objectContaining({ row: 5, handle: null, field: 'handle' }),
        expect.objectContaining({ row: 6, handle: 'no-category', field: 'category' }),
        expect.objectContaining({ row: 6, handle: 'no-category', field: 'images' }),
      ]),
    );
    const errors = await app.request(done.errors_csv_url, { token: owner });
    expect(errors.status).toBe(200);
    expect(errors.headers.get('content-type')).toMatch(/^text\/csv/);
    const lines = errors.text.trim().split('\n');
    expect(lines[0]).toBe([...ITEM_FILE_HEADER, 'error'].join(','));
    expect(lines.slice(1).map((l) => l.split(',')[0])).toEqual(['bad-price', 'bad-sku', '', 'no-category']);
    expect(await itemByHandle('good-one')).not.toBeNull();
  });

  it('when mode is create or update, then existing (create) or missing (update) handles fail and nothing of them is written', async () => {
    await runImport(
      app,
      owner,
      csv([
        ['handle', 'name', 'category', 'price'],
        ['mode-one', 'Mode one', 'Outdoor', '5'],
      ]),
    );
    const create = await runImport(
      app,
      owner,
      csv([
        ['handle', 'name', 'category', 'price'],
        ['mode-one', 'Renamed', 'Outdoor', '5'],
        ['mode-two', 'Mode two', 'Outdoor', '5'],
      ]),
      'mode=create',
    );
    expect(create.items).toEqual({ created: 1, updated: 0, unchanged: 0, failed: 1 });
    expect(create.errors[0]).toMatchObject({ row: 2, handle: 'mode-one', field: 'handle' });
    const update = await runImport(
      app,
      owner,
      csv([
        ['handle', 'name'],
        ['mode-one', 'Renamed'],
        ['mode-three', 'Mode three'],
      ]),
      'mode=update',
    );
    expect(update.items).toEqual({ created: 0, updated: 1, unchanged: 0, failed: 1 });
    expect(update.errors[0]).toMatchObject({ row: 3, handle: 'mode-three', field: 'handle' });
    expect((await itemByHandle('mode-one')).name).toBe('Renamed');
    expect(await itemByHandle('mode-three')).toBeNull();
  });

  it('when it is a dry run, then it counts exactly what a real run does and writes nothing', async () => {
    const file = csv([
      ITEM_FILE_HEADER,
      ['dry-new', 'Dry new', 'Dry > Run', '5', 1, '', '', '', '', ''],
      ['same-boot', 'Same boot', 'Outdoor', '10', 1, '', 'SB-1', '', 1, 'red'],
      ['dry-bad', '', 'Outdoor', '5', 1, '', '', '', '', ''],
    ]);
    const categories = await app.db.prisma.category.count();
    const dry = await runImport(app, owner, file, 'dry_run=true');
    expect(dry).toMatchObject({
      dry_run: true,
      status: 'succeeded',
      items: { created: 1, updated: 0, unchanged: 1, failed: 1 },
    });
    expect(await itemByHandle('dry-new')).toBeNull();
    expect(await app.db.prisma.category.count()).toBe(categories);
    expect(await auditOf(dry.id)).toEqual([]);
    const real = await runImport(app, owner, file);
    expect(real.items).toEqual(dry.items);
  });

  it('when an atomic import has one bad item, then nothing is written and it fails; when every item is good, then all are written', async () => {
    const bad = await runImport(
      app,
      owner,
      csv([
        ['handle', 'name', 'category', 'price'],
        ['atomic-a', 'Atomic a', 'Outdoor', '5'],
        ['atomic-b', 'Atomic b', 'Outdoor', 'x'],
      ]),
      'atomic=true',
    );
    expect(bad).toMatchObject({ status: 'failed', atomic: true, items: { failed: 1 } });
    expect(bad.errors[0]).toMatchObject({ row: 3, field: 'price' });
    expect(await itemByHandle('atomic-a')).toBeNull();
    const good = await runImport(
      app,
      owner,
      csv([
        ['handle', 'name', 'category', 'price'],
        ['atomic-a', 'Atomic a', 'Outdoor', '5'],
        ['atomic-b', 'Atomic b', 'Outdoor', '6'],
      ]),
      'atomic=true',
    );
    expect(good).toMatchObject({ status: 'succeeded', items: { created: 2, failed: 0 } });
    expect(await itemByHandle('atomic-b')).toMatchObject({ price: 6 });
  });
});

describe('values the database would refuse fail their item, not the batch (contract §13.2)', () => {
  const LONG = 'L'.repeat(101);

  it('when a category path has a name the category API refuses (101 characters), then that item fails on `category` in a dry run as in the real run, and the others are written', async () => {
    const file = csv([
      ['handle', 'name', 'category', 'price'],
      ['long-cat-good', 'Long cat good', 'Outdoor > Fine', '5'],
      ['long-cat-bad', 'Long cat bad', `Outdoor > ${LONG}`, '5'],
      ['long-cat-root', 'Long cat root', LONG, '5'],
    ]);
    const categories = await app.db.prisma.category.count();
    const dry = await runImport(app, owner, file, 'dry_run=true');
    expect(dry).toMatchObject({ status: 'succeeded', items: { created: 1, updated: 0, unchanged: 0, failed: 2 } });
    expect(dry.errors.map((e) => [e.row, e.handle, e.field])).toEqual([
      [3, 'long-cat-bad', 'category'],
      [4, 'long-cat-root', 'category'],
    ]);
    expect(dry.errors[0]!.message).toMatch(/at most 100 characters/);
    expect(await app.db.prisma.category.count()).toBe(categories);
    const real = await runImport(app, owner, file);
    expect(real).toMatchObject({ status: 'succeeded', items: dry.items, errors: dry.errors });
    expect(await itemByHandle('long-cat-good')).toMatchObject({ category: { name: 'Fine' } });
    expect(await itemByHandle('long-cat-bad')).toBeNull();
    expect(await itemByHandle('long-cat-root')).toBeNull();
    expect(await app.db.prisma.category.count({ where: { name: { startsWith: 'LLL' } } })).toBe(0);
  });

  it('when a JSON line’s category path has a name over 100 characters, then that line fails on `category` and the others are written', async () => {
    const done = await runImport(
      app,
      owner,
      [
        { handle: 'jsonl-long-cat-good', name: 'Fine', category: 'Outdoor', price: 5 },
        { handle: 'jsonl-long-cat-bad', name: 'Long', category: `Outdoor > ${LONG}`, price: 5 },
      ]
        .map((l) => JSON.stringify(l))
        .join('\n'),
      'format=jsonl',
      'application/x-ndjson',
    );
    expect(done).toMatchObject({ status: 'succeeded', items: { created: 1, failed: 1 } });
    expect(done.errors).toEqual([expect.objectContaining({ row: 2, handle: 'jsonl-long-cat-bad', field: 'category' })]);
    expect(await itemByHandle('jsonl-long-cat-good')).not.toBeNull();
    expect(await itemByHandle('jsonl-long-cat-bad')).toBeNull();
  });

  it('when a date is in the year 0000 (which PostgreSQL cannot hold), then that item fails on `publish_at` and the others are written', async () => {
    const done = await runImport(
      app,
      owner,
      csv([
        ['handle', 'name', 'category', 'price', 'publish_at'],
        ['year-good', 'Year good', 'Outdoor', '5', '2030-01-01T00:00:00.000Z'],
        ['year-zero', 'Year zero', 'Outdoor', '5', '0000-01-01T00:00:00.000Z'],
      ]),
    );
    expect(done).toMatchObject({ status: 'succeeded', items: { created: 1, failed: 1 } });
    expect(done.errors).toEqual([expect.objectContaining({ row: 3, handle: 'year-zero', field: 'publish_at' })]);
    expect(await itemByHandle('year-good')).not.toBeNull();
    expect(await itemByHandle('year-zero')).toBeNull();
  });
});

describe.skipIf(TEST_DB !== 'postgres')('the atomic write pass, on PostgreSQL', () => {
  it('when an atomic import writes, then its progress moves during the one transaction; a cancel then rolls every item back', async () => {
    const rows = [
      ['handle', 'name', 'category', 'price'],
      ...Array.from({ length: 3000 }, (_, i) => [`atomic-pass-${i}`, `Atomic pass ${i}`, 'Outdoor', '5']),
    ];
    const started = await sendImport(app, owner, csv(rows), 'atomic=true');
    expect(started.status).toBe(202);
    const id = started.body.id;
    const path = `/admin/api/imports/${id}`;
    // The write pass runs while its lock is held (the check pass before it counted every row once).
    const writing = async () =>
      (
        await app.db.sql.query(
          `SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND classid = $1 AND objid = $2 AND granted`,
          [ATOMIC_WRITE_LOCK, id],
        )
      ).length > 0;
    try {
      for (const until = Date.now() + 60_000; ; await new Promise((r) => setTimeout(r, 10))) {
        expect(Date.now()).toBeLessThan(until);
        if (!(await writing())) continue;
        const now = await app.request<ImportAnswer>(path, { token: owner });
        expect(now.body.status).toBe('running');
        // Counted beside the transaction, which has committed nothing yet.
        if (now.body.rows_done > 0 && now.body.rows_done < 3000) break;
      }
      // The import's row is not held by the pass: the cancel is answered at once.
      const cancelled = await app.request(`${path}/cancel`, { method: 'POST', token: owner });
      expect(cancelled.status).toBe(200);
      const done = await importEnded(app, owner, id);
      expect(done.status).toBe('cancelled');
      expect(done.items).toMatchObject({ created: 0, updated: 0 });
      expect(await app.db.prisma.item.count({ where: { handle: { startsWith: 'atomic-pass-' } } })).toBe(0);
    } finally {
      // Whatever happened, the later tests' catalogue is left as it was.
      await app.request(`${path}/cancel`, { method: 'POST', token: owner });
      await importEnded(app, owner, id);
      await app.db.prisma.item.deleteMany({ where: { handle: { startsWith: 'atomic-pass-' } } });
    }
  });
});

describe.skipIf(TEST_DB !== 'postgres')('the atomic write pass and the catalogue lock, on PostgreSQL', () => {
  it('when an item takes one of the file’s handles while the pass waits for the catalogue lock, then the pass runs again and writes every item, and the write waiting on that item does not deadlock', async () => {
    await runImport(
      app,
      owner,
      csv([
        ['handle', 'name', 'category', 'price'],
        ['moved-x-before', 'Moved X', 'Outdoor', '5'],
      ]),
    );
    const x = await app.db.prisma.item.findUniqueOrThrow({ where: { handle: 'moved-x-before' } });
    // Another session holds the catalogue lock: the pass locks the file's stored items (none yet), then waits.
    const holder = new pg.Client({ connectionString: app.databaseUrl });
    const writer = new pg.Client({ connectionString: app.databaseUrl });
    await holder.connect();
    await writer.connect();
    let id: number | undefined;
    try {
      await holder.query('BEGIN');
      await holder.query('SELECT search_index_lock()');
      const file = csv([
        ['handle', 'name', 'category', 'price'],
        ['moved-a', 'Moved A', 'Outdoor', '6'],
        ['moved-x', 'Moved X from the file', 'Outdoor', '7'],
        ['moved-b', 'Moved B', 'Outdoor', '8'],
      ]);
      const started = await sendImport(app, owner, file, 'atomic=true');
      expect(started.status, started.text).toBe(202);
      id = started.body.id;
      for (const until = Date.now() + 30_000; (await lockWaiters(holder)) === 0; await sleep(20))
        expect(Date.now()).toBeLessThan(until);
      // Meanwhile an item takes one of the file's handles (this session may write it: it holds the lock),
      // and a write of that item, in the catalogue writes' order (its row, then the lock), comes next.
      await holder.query(`UPDATE items SET handle = 'moved-x' WHERE id = $1`, [x.id]);
      const write = (async () => {
        await writer.query('BEGIN');
        await writer.query('SELECT 1 FROM items WHERE id = $1 FOR NO KEY UPDATE', [x.id]);
        await writer.query('SELECT search_index_lock()');
        await writer.query('COMMIT');
      })();
      for (const until = Date.now() + 30_000; (await lockWaiters(holder)) < 2; await sleep(20))
        expect(Date.now()).toBeLessThan(until);
      await holder.query('COMMIT');
      // The pass, given the lock, finds the item it did not lock and rolls back instead of waiting for
      // it while holding the lock — that write would wait for the pass, and the pass for it.
      await write;
      const done = await importEnded(app, owner, id);
      expect(done.status, JSON.stringify(done.errors)).toBe('succeeded');
      expect(done.items).toMatchObject({ created: 2, updated: 1, failed: 0 });
      const items = await app.db.prisma.item.findMany({
        where: { handle: { startsWith: 'moved-' } },
        select: { id: true, handle: true, name: true },
        orderBy: { handle: 'asc' },
      });
      expect(items.map((i) => [i.handle, i.name])).toEqual([
        ['moved-a', 'Moved A'],
        ['moved-b', 'Moved B'],
        ['moved-x', 'Moved X from the file'],
      ]);
      expect(items.find((i) => i.handle === 'moved-x')!.id).toBe(x.id);
    } finally {
      await holder.query('ROLLBACK').catch(() => {});
      await writer.query('ROLLBACK').catch(() => {});
      await holder.end();
      await writer.end();
      if (id !== undefined) await importEnded(app, owner, id);
      await app.db.prisma.item.deleteMany({ where: { handle: { startsWith: 'moved-' } } });
    }
  });
});

describe('files that cannot be read (contract §13.2)', () => {
  const cases: Array<{
    what: string;
    file: string | Buffer;
    type?: string;
    row: number;
    field?: string | null;
    message: RegExp;
  }> = [
    {
      what: 'an unknown column',
      file: csv([
        ['handle', 'colour', 'size'],
        ['x', 'red', '1'],
      ]),
      row: 1,
      field: 'colour, size',
      message: /unknown columns "colour", "size"/,
    },
    { what: 'no handle column', file: csv([['name'], ['x']]), row: 1, field: 'handle', message: /no handle column/ },
    {
      what: 'a broken quote',
      file: 'handle,name\r\nok,Fine\r\nbroken,"never closed\r\n',
      row: 3,
      message: /quoted field is never closed/,
    },
    {
      what: 'a row with too many fields',
      file: 'handle,name\r\nok,Fine,extra\r\n',
      row: 2,
      message: /number of fields/,
    },
    {
      what: 'bytes that are not UTF-8',
      file: Buffer.from([...Buffer.from('handle,name\r\nok,'), 0xff, 0xfe, 0x0d, 0x0a]),
      row: 2,
      message: /not UTF-8/,
    },
    {
      what: 'a line that is not JSON',
      file: '{"handle":"ok","name":"Fine"}\n{not json\n',
      type: 'application/x-ndjson',
      row: 2,
      message: /not JSON/,
    },
  ];
  it.each(cases)(
    'when the file has $what, then the import fails naming the row, and nothing is written',
    async ({ file, type, row, field, message }) => {
      const items = await app.db.prisma.item.count();
      const started = await app.request('/admin/api/imports', {
        method: 'POST',
        rawBody: file as string,
        contentType: type ?? 'text/csv',
        token: owner,
      });
      expect(started.status, started.text).toBe(202);
      const done = await importEnded(app, owner, started.body.id);
      expect(done.status).toBe('failed');
      expect(done.errors[0]).toMatchObject({
        row,
        ...(field !== undefined ? { field } : {}),
        message: expect.stringMatching(message),
      });
      expect(await app.db.prisma.item.count()).toBe(items);
    },
  );

  it('when a CSV file has a byte-order mark and quoted fields spanning lines, then it is read as one row per record', async () => {
    const file = `\uFEFF${csv([
      ['handle', 'name', 'description', 'category', 'price'],
      ['bom-boot', 'Bom boot', 'line one\nline two, "quoted"', 'Outdoor', '5'],
    ])}`;
    const done = await runImport(app, owner, file);
    expect(done).toMatchObject({ status: 'succeeded', rows_total: 1, items: { created: 1 } });
    expect((await itemByHandle('bom-boot')).description).toBe('line one\nline two, "quoted"');
  });
});

describe('JSON Lines import (contract §13.1)', () => {
  it('when each line is an item in REST names with a category path, then they are imported; read-only fields are ignored', async () => {
    const lines = [
      {
        id: 999,
        handle: 'jsonl-boot',
        name: 'Jsonl boot',
        category: 'Outdoor > Boots',
        price: 12.5,
        stock: 2,
        status: 'active',
        version: 7,
        skus: [{ id: 5, sku_code: 'JB-1', specs: { size: '42' }, price: 13, stock: 2 }],
        images: [{ url: 'https://cdn.example.com/j.jpg', sort_order: 0 }],
      },
      { handle: 'jsonl-bad', name: 'Bad', category: 'Outdoor', price: -1 },
    ];
    const done = await runImport(
      app,
      owner,
      lines.map((l) => JSON.stringify(l)).join('\n'),
      'format=jsonl',
      'application/x-ndjson',
    );
    expect(done).toMatchObject({ format: 'jsonl', items: { created: 1, failed: 1 } });
    expect(done.errors).toEqual([expect.objectContaining({ row: 2, handle: 'jsonl-bad', field: 'price' })]);
    expect(await itemByHandle('jsonl-boot')).toMatchObject({
      status: 'active',
      price: 12.5,
      version: 1,
      skus: [{ skuCode: 'JB-1', specs: { size: '42' }, price: 13 }],
    });
  });
});

describe('JSON Lines without a handle (contract §13.1: `handle` required)', () => {
  const nameless = ['Nameless absent', 'Nameless absent again', 'Nameless null', 'Nameless blank'];
  const file = (good: string) =>
    [
      { handle: good, name: 'Handled', category: 'Outdoor', price: 5 },
      { name: nameless[0], category: 'Outdoor', price: 5 },
      { name: nameless[1], category: 'Outdoor', price: 6 },
      { handle: null, name: nameless[2], category: 'Outdoor', price: 7 },
      { handle: '  ', name: nameless[3], category: 'Outdoor', price: 8 },
    ]
      .map((l) => JSON.stringify(l))
      .join('\n');
  const expectNothingNameless = async () => {
    expect(await app.db.prisma.item.count({ where: { name: { in: nameless } } })).toBe(0);
    expect(await app.db.prisma.item.count({ where: { handle: '' } })).toBe(0);
  };

  it('when lines have no handle (absent, null or blank), then each fails on `handle` and is not written, the others are; a CSV row with an empty handle cell fails by the same rule', async () => {
    const done = await runImport(app, owner, file('jsonl-handled'), 'format=jsonl', 'application/x-ndjson');
    expect(done).toMatchObject({ status: 'succeeded', items: { created: 1, updated: 0, unchanged: 0, failed: 4 } });
    expect(done.errors.map((e) => [e.row, e.handle, e.field])).toEqual([
      [2, null, 'handle'],
      [3, null, 'handle'],
      [4, null, 'handle'],
      [5, null, 'handle'],
    ]);
    expect(await itemByHandle('jsonl-handled')).not.toBeNull();
    await expectNothingNameless();
    const fromCsv = await runImport(
      app,
      owner,
      csv([
        ['handle', 'name', 'category', 'price'],
        ['', 'Nameless csv', 'Outdoor', '5'],
      ]),
    );
    expect(fromCsv.errors).toEqual([{ row: 2, handle: null, field: 'handle', message: done.errors[0]!.message }]);
  });

  it('when an atomic import has a line without a handle, then nothing is written and it fails', async () => {
    const done = await runImport(
      app,
      owner,
      file('jsonl-handled-atomic'),
      'format=jsonl&atomic=true',
      'application/x-ndjson',
    );
    expect(done).toMatchObject({ status: 'failed', atomic: true, items: { created: 0, failed: 4 } });
    expect(done.errors[0]).toMatchObject({ row: 2, handle: null, field: 'handle' });
    expect(await itemByHandle('jsonl-handled-atomic')).toBeNull();
    await expectNothingNameless();
  });
});

describe('the import doors (contract §13.2)', () => {
  it('when the file is sent, then 202 with Location and the queued import; GET by id and the list read it', async () => {
    const res = await sendImport(
      app,
      owner,
      csv([
        ['handle', 'name', 'category', 'price'],
        ['door-one', 'Door one', 'Outdoor', '5'],
      ]),
    );
    expect(res.status).toBe(202);
    expect(res.headers.get('location')).toBe(`/admin/api/imports/${res.body.id}`);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(['queued', 'running', 'succeeded']).toContain(res.body.status);
    // Staged while it was sent: the import is queued knowing its rows (progress from its first second).
    expect(res.body).toMatchObject({ rows_total: 1, rows_done: 0 });
    await importEnded(app, owner, res.body.id);
    // Every admin sees every import (catalogRead).
    const one = await app.request<ImportAnswer>(`/admin/api/imports/${res.body.id}`, { token: viewer });
    expect(one.body).toMatchObject({ id: res.body.id, errors_csv_url: `/admin/api/imports/${res.body.id}/errors.csv` });
    const list = await app.request('/admin/api/imports?limit=2', { token: viewer });
    expect(list.body).toMatchObject({ page: 1, limit: 2 });
    expect(list.body.imports[0].id).toBe(res.body.id);
    expect(list.body.total).toBeGreaterThan(1);
    expectProblem(await app.request('/admin/api/imports/999999', { token: owner }), 404, 'NOT_FOUND');
    // An id no int column holds names no import: 404, never a statement with it.
    for (const path of [
      '/admin/api/imports/9999999999',
      '/admin/api/imports/9999999999/errors.csv',
      '/admin/api/imports/x/errors.csv',
    ]) {
      expectProblem(await app.request(path, { token: owner }), 404, 'NOT_FOUND');
    }
  });

  it('when the caller may not write the catalogue, sends no token, the wrong type or too many bytes, then 403, 401, 415 or 413 and no import', async () => {
    const before = await app.db.prisma.import.count();
    const file = csv([['handle'], ['x']]);
    expectProblem(await sendImport(app, viewer, file), 403, 'FORBIDDEN');
    expectProblem(
      await app.request('/admin/api/imports', { method: 'POST', rawBody: file, contentType: 'text/csv' }),
      401,
      'UNAUTHENTICATED',
    );
    expectProblem(await sendImport(app, owner, file, '', 'application/json'), 415, 'UNSUPPORTED_MEDIA_TYPE');
    expectProblem(await sendImport(app, owner, 'x'.repeat(257 * 1024)), 413, 'PAYLOAD_TOO_LARGE');
    expectProblem(await sendImport(app, owner, file, 'mode=merge'), 400, 'VALIDATION_FAILED');
    expect(await app.db.prisma.import.count()).toBe(before);
  });

  it('when a GraphQL multipart request uploads the file, then startImport queues it and import() reads it to the end', async () => {
    const form = new FormData();
    form.append(
      'operations',
      JSON.stringify({
        query: 'mutation($file: File!) { startImport(file: $file, mode: upsert) { id status format } }',
        variables: { file: null },
      }),
    );
    form.append('map', JSON.stringify({ 0: ['variables.file'] }));
    form.append(
      '0',
      new Blob(
        [
          csv([
            ['handle', 'name', 'category', 'price'],
            ['gql-one', 'Gql one', 'Outdoor', '5'],
          ]),
        ],
        { type: 'text/csv' },
      ),
      'items.csv',
    );
    const res = await fetch(`${app.url}/graphql`, {
      method: 'POST',
      body: form,
      headers: { authorization: `Bearer ${owner}` },
    });
    const body = (await res.json()) as { data: { startImport: { id: number; format: string } }; errors?: unknown };
    expect(body.errors).toBeUndefined();
    expect(body.data.startImport.format).toBe('csv');
    const done = await importEnded(app, owner, body.data.startImport.id);
    expect(done.items.created).toBe(1);
    const read = await app.graphql(
      'query($id: Int!) { import(id: $id) { status rowsDone items { created } errorsCsvUrl actor { type } } }',
      { id: done.id },
      { token: viewer },
    );
    expect(read.body.data.import).toMatchObject({
      status: 'succeeded',
      rowsDone: 1,
      items: { created: 1 },
      actor: { type: 'admin' },
    });
    const viewerStarts = await app.graphql('mutation { cancelImport(id: 1) { id } }', {}, { token: viewer });
    expect(gqlCode(viewerStarts)).toBe('FORBIDDEN');
  });

  it('when a finished import is cancelled, then nothing changes; a running one stops after its batch, keeping what committed', async () => {
    const finished = await runImport(
      app,
      owner,
      csv([
        ['handle', 'name', 'category', 'price'],
        ['cancel-done', 'Cancel done', 'Outdoor', '5'],
      ]),
    );
    const again = await app.request<ImportAnswer>(`/admin/api/imports/${finished.id}/cancel`, {
      method: 'POST',
      token: owner,
    });
    expect(again.body).toMatchObject({ status: 'succeeded', finished_at: finished.finished_at });
    const rows = [
      ['handle', 'name', 'category', 'price'],
      ...Array.from({ length: 3000 }, (_, i) => [`cancel-${i}`, `Cancel ${i}`, 'Outdoor', '5']),
    ];
    const started = await sendImport(app, owner, csv(rows));
    expect(started.body.rows_total).toBe(3000);
    for (;;) {
      const now = await app.request<ImportAnswer>(`/admin/api/imports/${started.body.id}`, { token: owner });
      if (now.body.rows_done > 0 || (now.body.status !== 'running' && now.body.status !== 'queued')) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    const cancelled = await app.request(`/admin/api/imports/${started.body.id}/cancel`, {
      method: 'POST',
      token: owner,
    });
    expect(cancelled.status).toBe(200);
    const done = await importEnded(app, owner, started.body.id);
    expect(done.status).toBe('cancelled');
    expect(done.rows_done).toBeLessThan(3000);
    const written = await app.db.prisma.item.count({ where: { handle: { startsWith: 'cancel-' } } });
    // The done-done item plus exactly what the committed batches created.
    expect(written).toBe(done.items.created + 1);
    // How many committed depends on when the cancel arrived: up to 3,000 items the later tests'
    // exports would carry (the export → import test's file would pass IMPORT_MAX_BYTES).
    await app.db.prisma.item.deleteMany({ where: { handle: { startsWith: 'cancel-' } } });
  });
});

describe('an import queued by the previous version', () => {
  it('when its file was kept in chunks and not staged, then its job stages the chunks and runs it', async () => {
    const file = csv([
      ['handle', 'name', 'category', 'price'],
      ['chunked-one', 'Chunked one', 'Outdoor', '5'],
      ['chunked-two', 'Chunked two', 'Outdoor', '6'],
    ]);
    const bytes = Buffer.from(file);
    const prisma = app.db.prisma;
    const admin = await prisma.admin.findFirstOrThrow({ where: { username: TEST_ADMIN.username } });
    const row = await prisma.import.create({
      data: {
        format: 'csv',
        mode: 'upsert',
        dryRun: false,
        atomic: false,
        actorType: 'admin',
        actorId: admin.id,
        actorName: admin.username,
        fileBytes: bytes.length,
      },
    });
    // Split inside a row: staging reads the chunks in order as one text.
    await prisma.importChunk.createMany({
      data: [
        { importId: row.id, seq: 0, data: bytes.subarray(0, 40) },
        { importId: row.id, seq: 1, data: bytes.subarray(40) },
      ],
    });
    await app.services.jobs.send('imports', { importId: row.id }, { key: String(row.id) });
    const done = await importEnded(app, owner, row.id);
    expect(done).toMatchObject({ status: 'succeeded', rows_total: 2, rows_done: 2, items: { created: 2 } });
    expect(await prisma.item.count({ where: { handle: { startsWith: 'chunked-' } } })).toBe(2);
    expect(await prisma.importChunk.count({ where: { importId: row.id } })).toBe(0);
  });
});

describe('export → import (contract §13.1)', () => {
  it('when every item is exported as CSV or JSON Lines and the file imported back, then every item is unchanged', async () => {
    // An item as the API writes it: images sorted 0 and 5, a category whose name holds ">", SKUs with and without codes.
    const category = await app.graphql(
      'mutation { createCategory(input: { name: "A>B" }) { id } }',
      {},
      { token: owner },
    );
    const created = await app.request('/admin/api/items', {
      method: 'POST',
      token: owner,
      body: {
        name: 'Round trip, "quoted"\nline two',
        category_id: category.body.data.createCategory.id,
        price: 10.5,
        stock: 3,
        status: 'archived',
        publish_at: '2030-01-01T00:00:00.000Z',
        skus: [
          { sku_code: 'RT-1', specs: { color: 'red', 尺码: '42' }, price: 11, stock: 1 },
          { specs: { color: 'blue' }, stock: 2 },
        ],
        images: [
          { url: 'https://cdn.example.com/rt-a.jpg', sort_order: 0 },
          { url: 'https://cdn.example.com/rt-b.jpg', sort_order: 5 },
        ],
      },
    });
    expect(created.status, created.text).toBe(201);
    const total = await app.db.prisma.item.count();
    for (const format of ['csv', 'jsonl'] as const) {
      const file = await app.request(`/admin/api/exports/items?format=${format}`, { token: owner });
      expect(file.status).toBe(200);
      const done = await runImport(
        app,
        owner,
        file.text,
        `format=${format}`,
        format === 'csv' ? 'text/csv' : 'application/x-ndjson',
      );
      expect(done.items, `${format}: ${JSON.stringify(done.errors.slice(0, 3))}`).toEqual({
        created: 0,
        updated: 0,
        unchanged: total,
        failed: 0,
      });
    }
  });
});
