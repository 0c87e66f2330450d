/**
 * Rules of contract §13.2 that the main import tests (imports.test.ts) do not reach, through the real
 * server: the errors list's first 1,000 beside an errors file with every failed row, who may read that
 * file, a body over IMPORT_MAX_BYTES sent without a Content-Length, and code-less SKUs matched in order.
 */
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectProblem, loginAsAdmin, makeAdmin } from '../helpers/accounts.ts';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';
import { csv, runImport } from './import-helpers.ts';

const MAX_BYTES = 64 * 1024;
let app: TestApp;
let owner: string;
let viewer: string;

beforeAll(async () => {
  app = await startTestApp({ LOGIN_IP_PER_MINUTE: '1000', IMPORT_MAX_BYTES: String(MAX_BYTES) });
  owner = await loginAsAdmin(app);
  const admin = await makeAdmin(app, { role: 'viewer', password: 'viewer-password-1' });
  viewer = await loginAsAdmin(app, { username: admin.username, password: 'viewer-password-1' });
});
afterAll(() => app?.close());

/**
 * POST /admin/api/imports with the file sent in chunks (Transfer-Encoding: chunked, no Content-Length).
 * With `holdEnd`, the body's end is sent only after the answer (or 5 s without one): an answer that
 * comes first was given to a body that had not all arrived.
 */
function sendChunked(
  token: string,
  chunks: string[],
  holdEnd = false,
): Promise<{ status: number; connection?: string; body: Record<string, unknown> | undefined }> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${app.url}/admin/api/imports`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'text/csv' },
    });
    req.on('response', (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString()));
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          connection: res.headers.connection,
          body: text ? JSON.parse(text) : undefined,
        }),
      );
    });
    // The service may answer and close before the whole file is sent: that is the answer.
    req.on('error', reject);
    for (const chunk of chunks) req.write(chunk);
    if (!holdEnd) return req.end();
    const end = setTimeout(() => req.end(), 5000);
    req.on('response', () => clearTimeout(end));
  });
}

describe('import rules (contract §13.2)', () => {
  it('when more than 1,000 rows fail, then the import lists the first 1,000 and its errors file every one; a viewer reads it, no token does not', async () => {
    const bad = 1_050;
    const done = await runImport(
      app,
      owner,
      csv([
        ['handle', 'name', 'category', 'price'],
        ...Array.from({ length: bad }, (_, i) => [`many-bad-${i}`, `Many bad ${i}`, 'Outdoor', 'not a price']),
        ['many-good', 'Many good', 'Outdoor', '5'],
      ]),
      'dry_run=true',
    );
    expect(done).toMatchObject({ status: 'succeeded', items: { created: 1, failed: bad } });
    expect(done.errors).toHaveLength(1_000);
    expect(done.errors[0]).toMatchObject({ row: 2, handle: 'many-bad-0', field: 'price' });
    expect(done.errors[999]).toMatchObject({ row: 1_001, handle: 'many-bad-999' });
    const file = await app.request(done.errors_csv_url, { token: viewer });
    expect(file.status).toBe(200);
    const lines = file.text.trim().split(/\r?\n/);
    expect(lines).toHaveLength(1 + bad);
    expect(lines.at(-1)).toMatch(/^many-bad-1049,/);
    expectProblem(await app.request(done.errors_csv_url), 401, 'UNAUTHENTICATED');
  });

  it('when a file over IMPORT_MAX_BYTES comes without a Content-Length, then 413 and no import is left', async () => {
    const before = await app.db.prisma.import.count();
    const row = `${'a'.repeat(60)},Chunked,Outdoor,5\n`;
    const chunks = ['handle,name,category,price\n', ...Array.from({ length: 40 }, () => row.repeat(40))];
    expect(chunks.join('').length).toBeGreaterThan(MAX_BYTES);
    const answer = await sendChunked(owner, chunks, true);
    expect(answer.status).toBe(413);
    expect(answer.body).toMatchObject({ code: 'PAYLOAD_TOO_LARGE' });
    // The rest of the body is not read: the connection ends with the answer.
    expect(answer.connection).toBe('close');
    expect(await app.db.prisma.import.count()).toBe(before);
    // Under the limit, the same way in, it is taken.
    const small = await sendChunked(owner, ['handle,name,category,price\n', 'chunked-small,Chunked small,Outdoor,5\n']);
    expect(small.status).toBe(202);
  });

  it('when a file holds U+0000 or an unpaired surrogate, then its import fails naming the row and column, as the item rules word it, and nothing is written', async () => {
    const cases: Array<{ file: string; query: string; type: string; row: number; field: string }> = [
      {
        file: 'handle,name,category,price\nnul-good,Good,Outdoor,5\nnul-csv,A\u0000B,Outdoor,5\n',
        query: 'format=csv',
        type: 'text/csv',
        row: 3,
        field: 'name',
      },
      {
        file: `${JSON.stringify({ handle: 'nul-good', name: 'Good', category: 'Outdoor', price: 5 })}\n{"handle":"nul-json","name":"N","category":"Outdoor","price":5,"skus":[{"sku_code":"N-1","price":5,"stock":1,"specs":{"c\\ud800":"v"}}]}\n`,
        query: 'format=jsonl',
        type: 'application/x-ndjson',
        row: 2,
        field: 'skus',
      },
    ];
    for (const { file, query, type, row, field } of cases) {
      const done = await runImport(app, owner, file, query, type);
      expect(done, type).toMatchObject({ status: 'failed', items: { created: 0 } });
      expect(done.errors, type).toEqual([
        expect.objectContaining({ row, field, message: 'must not contain U+0000 or unpaired surrogates' }),
      ]);
    }
    expect(await app.db.prisma.item.count({ where: { handle: { startsWith: 'nul-' } } })).toBe(0);
  });

  it('when an item’s rows have no sku_code, then they replace its code-less SKUs in order: the first rows keep the stored SKUs, the rest come or go', async () => {
    const header = ['handle', 'name', 'category', 'price', 'sku_price', 'spec:color'];
    const skusOf = async () =>
      (
        await app.db.prisma.item.findUniqueOrThrow({
          where: { handle: 'codeless' },
          include: { skus: { orderBy: { id: 'asc' } } },
        })
      ).skus.map((s) => ({ id: s.id, price: Number(s.price), specs: s.specs }));
    await runImport(
      app,
      owner,
      csv([header, ['codeless', 'Codeless', 'Outdoor', '5', '5', 'red'], ['codeless', '', '', '', '6', 'blue']]),
    );
    const [red, blue] = await skusOf();
    const three = await runImport(
      app,
      owner,
      csv([
        header,
        ['codeless', 'Codeless', 'Outdoor', '5', '7', 'green'],
        ['codeless', '', '', '', '8', 'blue'],
        ['codeless', '', '', '', '9', 'white'],
      ]),
    );
    expect(three.items).toMatchObject({ updated: 1, failed: 0 });
    const after = await skusOf();
    expect(after).toHaveLength(3);
    expect(after.slice(0, 2)).toEqual([
      { id: red!.id, price: 7, specs: { color: 'green' } },
      { id: blue!.id, price: 8, specs: { color: 'blue' } },
    ]);
    expect(after[2]).toMatchObject({ price: 9, specs: { color: 'white' } });
    const one = await runImport(app, owner, csv([header, ['codeless', 'Codeless', 'Outdoor', '5', '4', 'red']]));
    expect(one.items).toMatchObject({ updated: 1 });
    expect(await skusOf()).toEqual([{ id: red!.id, price: 4, specs: { color: 'red' } }]);
  });
});
