/**
 * GraphQL multipart uploads (startImport, contract §13.2) through the real server, read as they arrive
 * (src/graphql/streamed-upload.ts): the file is staged while it is still coming — never held whole in
 * memory — and a request that is not a GraphQL multipart request is refused as one, with no import.
 */
import http from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loginAsAdmin } from '../helpers/accounts.ts';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';
import { csv, importEnded, sendMultipart, startImportForm } from './import-helpers.ts';

let app: TestApp;
let owner: string;

beforeAll(async () => {
  app = await startTestApp();
  owner = await loginAsAdmin(app);
});
afterAll(() => app?.close());

const itemsFile = (count: number, prefix = 'streamed') =>
  csv([
    ['handle', 'name', 'category', 'price'],
    ...Array.from({ length: count }, (_, i) => [`${prefix}-${i}`, `Streamed ${i}`, 'Outdoor', '5']),
  ]);

const imports = () => app.db.prisma.import.count();

/** Rows staged so far by the newest import (none when there is none). */
const stagedOfNewest = async () =>
  Number(
    (
      await app.db.sql.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM import_rows WHERE import_id = (SELECT max(id) FROM imports)',
      )
    )[0]!.n,
  );

describe('GraphQL uploads read as they arrive (contract §13.2)', () => {
  it('when an upload is still arriving, then its rows are already staged; once it ends, the import runs to the end', async () => {
    const before = await imports();
    let stagedWhileHeld = 0;
    const answer = await sendMultipart(
      app,
      startImportForm(itemsFile(3000), 'dryRun: true'),
      { authorization: `Bearer ${owner}` },
      {
        holdTail: true,
        // The body's last 64 bytes are held back: a parser that reads the whole body first stages nothing.
        whileHeld: async () => {
          for (const until = Date.now() + 10_000; Date.now() < until; await sleep(50)) {
            stagedWhileHeld = await stagedOfNewest();
            if ((await imports()) > before && stagedWhileHeld >= 1000) return;
          }
        },
      },
    );
    expect(stagedWhileHeld).toBeGreaterThanOrEqual(1000);
    expect(answer.answeredBeforeEnd).toBe(false);
    expect(answer.status).toBe(200);
    expect(answer.body.errors).toBeUndefined();
    const done = await importEnded(app, owner, answer.body.data!.startImport!.id);
    expect(done).toMatchObject({ status: 'succeeded', rows_total: 3000, items: { created: 3000, failed: 0 } });
  });

  it('when an upload is larger than 25 MB (the default body limit of Yoga), then it is read to its end (IMPORT_MAX_BYTES is the limit)', async () => {
    const wide = 'w'.repeat(50_000);
    const rows = 600;
    const file = csv([
      ['handle', 'name', 'category', 'price', 'description'],
      ...Array.from({ length: rows }, (_, i) => [`wide-${i}`, `Wide ${i}`, 'Outdoor', '5', wide]),
    ]);
    expect(file.length).toBeGreaterThan(25_000_000);
    const answer = await sendMultipart(app, startImportForm(file, 'dryRun: true'), {
      authorization: `Bearer ${owner}`,
    });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    const done = await importEnded(app, owner, answer.body.data!.startImport!.id);
    expect(done.rows_total).toBe(rows);
  });

  it('when an upload is refused before its file is read (no token), then the answer comes before the body has ended, and the connection closes', async () => {
    const before = await imports();
    const answer = await sendMultipart(
      app,
      startImportForm(itemsFile(3000)),
      { 'x-graphql-yoga-csrf': '1' },
      { holdTail: true },
    );
    expect(answer.answeredBeforeEnd).toBe(true);
    expect(answer.body.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    expect(answer.connection).toBe('close');
    expect(await imports()).toBe(before);
  });

  it('when the client goes away in the middle of its file, then no import is left behind', async () => {
    const before = await imports();
    const encoded = new Response(startImportForm(itemsFile(3000, 'gone')));
    const bytes = Buffer.from(await encoded.arrayBuffer());
    const req = http.request(`${app.url}/graphql`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${owner}`,
        'content-type': encoded.headers.get('content-type') ?? '',
        'transfer-encoding': 'chunked',
      },
    });
    req.on('error', () => {});
    req.write(bytes.subarray(0, bytes.length / 2));
    // Gone once its import has begun staging.
    for (const until = Date.now() + 10_000; Date.now() < until && (await imports()) === before; ) await sleep(20);
    expect(await imports()).toBe(before + 1);
    req.destroy();
    for (const until = Date.now() + 10_000; Date.now() < until && (await imports()) !== before; ) await sleep(50);
    expect(await imports()).toBe(before);
    expect(await app.db.prisma.item.count({ where: { handle: { startsWith: 'gone-' } } })).toBe(0);
  });
});

describe('GraphQL multipart requests that are not well formed (graphql-multipart-request-spec)', () => {
  const postForm = (form: FormData) =>
    fetch(`${app.url}/graphql`, { method: 'POST', body: form, headers: { authorization: `Bearer ${owner}` } });
  /** A form of `query` with an empty map (no file). */
  const fileless = (query: string) => {
    const form = new FormData();
    form.append('operations', JSON.stringify({ query }));
    form.append('map', '{}');
    return form;
  };
  const operations = JSON.stringify({
    query: 'mutation($file: File!) { startImport(file: $file) { id } }',
    variables: { file: null },
  });
  /** Each the parts of a form in the order they are sent; `FILE` stands for a small CSV file. */
  const FILE = Symbol('file');
  const MAP = '{"0":["variables.file"]}';
  const cases: Array<[string, Array<[string, string | typeof FILE]>]> = [
    [
      'no operations part',
      [
        ['map', MAP],
        ['0', FILE],
      ],
    ],
    [
      'operations that are not JSON',
      [
        ['operations', '{nope'],
        ['map', '{}'],
      ],
    ],
    [
      'the file before the map',
      [
        ['operations', operations],
        ['0', FILE],
        ['map', MAP],
      ],
    ],
    [
      'a file the map does not name',
      [
        ['operations', operations],
        ['map', '{"1":["variables.file"]}'],
        ['0', FILE],
      ],
    ],
    [
      'a file the map names that never comes',
      [
        ['operations', operations],
        ['map', MAP],
      ],
    ],
    [
      'a map that is not an object of path lists',
      [
        ['operations', operations],
        ['map', '{"0":"variables.file"}'],
        ['0', FILE],
      ],
    ],
    [
      'a map path through a prototype',
      [
        ['operations', operations],
        ['map', '{"0":["__proto__.polluted"]}'],
        ['0', FILE],
      ],
    ],
    [
      'two files',
      [
        ['operations', operations],
        ['map', '{"0":["variables.file"],"1":["variables.other"]}'],
        ['0', FILE],
        ['1', FILE],
      ],
    ],
  ];

  it.each(cases)('when a request has %s, then 400 VALIDATION_FAILED and no import', async (_, parts) => {
    const before = await imports();
    const form = new FormData();
    for (const [name, value] of parts) {
      if (value === FILE) form.append(name, new Blob([itemsFile(2, 'malformed')], { type: 'text/csv' }), 'a.csv');
      else form.append(name, value);
    }
    const res = await postForm(form);
    const body = (await res.json()) as { errors?: Array<{ message: string; extensions?: { code?: string } }> };
    expect(res.status, JSON.stringify(body)).toBe(400);
    expect(body.errors?.[0]?.extensions?.code).toBe('VALIDATION_FAILED');
    expect(body.errors?.[0]?.message).toMatch(/^Not a GraphQL multipart request: /);
    expect(await imports()).toBe(before);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(await app.db.prisma.item.count({ where: { handle: { startsWith: 'malformed-' } } })).toBe(0);
  });

  it('when the operations part is larger than a JSON body may be (100 KiB), then 413 PAYLOAD_TOO_LARGE and no import', async () => {
    const before = await imports();
    const res = await postForm(fileless(`# ${'x'.repeat(110 * 1024)}\n{ categories { id } }`));
    expect(res.status).toBe(413);
    const body = (await res.json()) as { errors?: Array<{ extensions?: { code?: string } }> };
    expect(body.errors?.[0]?.extensions?.code).toBe('PAYLOAD_TOO_LARGE');
    expect(await imports()).toBe(before);
  });

  it('when a form carries an operation and no file, then it runs as any other request', async () => {
    const res = await postForm(fileless('{ __typename }'));
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ data: { __typename: 'Query' } });
  });
});
