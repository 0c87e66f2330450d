/**
 * Contract §13.2 through the real server: a GraphQL multipart upload (startImport) is held to
 * IMPORT_MAX_BYTES as it arrives, also when sent chunked (no Content-Length to refuse it by) — refused
 * with 413 as soon as the file passes the limit, not once the whole body has been read into memory.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loginAsAdmin } from '../helpers/accounts.ts';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';
import { csv, importEnded, sendMultipart, startImportForm } from './import-helpers.ts';

const LIMIT = 64 * 1024;

let app: TestApp;
let owner: string;

beforeAll(async () => {
  app = await startTestApp({ IMPORT_MAX_BYTES: String(LIMIT) });
  owner = await loginAsAdmin(app);
});
afterAll(() => app?.close());

/** A CSV file of `count` new items. */
const itemsFile = (count: number) =>
  csv([
    ['handle', 'name', 'category', 'price'],
    ...Array.from({ length: count }, (_, i) => [`upload-${i}`, `Upload ${i}`, 'Outdoor', '5']),
  ]);

describe('GraphQL upload size (contract §13.2)', () => {
  it('when a chunked upload passes IMPORT_MAX_BYTES, then 413 PAYLOAD_TOO_LARGE before the body has ended, and no import', async () => {
    const before = await app.db.prisma.import.count();
    const file = itemsFile(3000);
    expect(file.length).toBeGreaterThan(LIMIT * 1.5);
    const over = await sendMultipart(
      app,
      startImportForm(file),
      { authorization: `Bearer ${owner}` },
      { holdTail: true },
    );
    expect(over.answeredBeforeEnd).toBe(true);
    expect(over.status).toBe(413);
    // The rest is not read: the connection ends with the answer.
    expect(over.connection).toBe('close');
    expect(over.body.errors?.[0]).toMatchObject({
      message: `The file exceeds IMPORT_MAX_BYTES (${LIMIT} bytes).`,
      extensions: { code: 'PAYLOAD_TOO_LARGE' },
    });
    // The file reaches startImport as it arrives, so the refusal is the operation's: no data.
    expect(over.body.data ?? null).toBeNull();
    expect(await app.db.prisma.import.count()).toBe(before);
  });

  it('when a chunked upload is within IMPORT_MAX_BYTES, then it is queued and imported', async () => {
    const file = itemsFile(2);
    const within = await sendMultipart(app, startImportForm(file), { authorization: `Bearer ${owner}` });
    expect(within.status).toBe(200);
    expect(within.body.errors).toBeUndefined();
    const done = await importEnded(app, owner, within.body.data!.startImport!.id);
    expect(done).toMatchObject({ status: 'succeeded', items: { created: 2 } });
  });
});

describe('GraphQL CSRF protection (graphql-yoga plugin-csrf-prevention)', () => {
  /** startImport as a multipart request with `headers` (no Authorization unless given). */
  const multipart = (headers: Record<string, string>) =>
    fetch(`${app.url}/graphql`, { method: 'POST', body: startImportForm(itemsFile(1)), headers });
  const codeOf = async (res: Response) =>
    ((await res.json()) as { errors?: Array<{ extensions?: { code?: string } }> }).errors?.[0]?.extensions?.code;

  it('when a request a page of another site could send without a preflight carries neither Authorization nor the CSRF header, then 403 FORBIDDEN and nothing runs', async () => {
    const before = await app.db.prisma.import.count();
    // A form's upload, as a cross-site page would post it.
    const upload = await multipart({ origin: 'https://evil.example.com' });
    expect(upload.status).toBe(403);
    expect(await codeOf(upload)).toBe('FORBIDDEN');
    // A form-encoded POST: not a body /graphql takes at all (only JSON, and multipart for uploads).
    const form = await fetch(`${app.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ query: '{ categories { id } }' }),
    });
    expect(form.status).toBe(415);
    expect(await app.db.prisma.import.count()).toBe(before);
  });

  it('when the upload carries Authorization, or the CSRF header, then it passes the check; JSON posts and GET queries never need it', async () => {
    expect((await multipart({ authorization: `Bearer ${owner}` })).status).toBe(200);
    // The CSRF header alone passes the check, and the mutation then asks who is calling.
    const anonymous = await multipart({ 'x-graphql-yoga-csrf': '1' });
    expect(await codeOf(anonymous)).toBe('UNAUTHENTICATED');
    const json = await fetch(`${app.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ categories { id } }' }),
    });
    expect(json.status).toBe(200);
    const get = await fetch(`${app.url}/graphql?query=${encodeURIComponent('{ categories { id } }')}`);
    expect(get.status).toBe(200);
  });
});
