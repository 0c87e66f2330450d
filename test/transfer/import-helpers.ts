/** Imports through the real server (contract §13.2): send a file, wait for the import to end. */
import http from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'vitest';
import type { ApiResponse, TestApp } from '../helpers/test-app.ts';

export interface ImportAnswer {
  id: number;
  status: 'queued' | 'running' | 'succeeded' | 'failed' | 'cancelled';
  rows_total: number | null;
  rows_done: number;
  items: { created: number; updated: number; unchanged: number; failed: number };
  errors: Array<{ row: number; handle: string | null; field: string | null; message: string }>;
  errors_csv_url: string;
  [key: string]: unknown;
}

/** The columns of the tests' item files: an item with its images, one SKU per row, one spec (`color`). */
export const ITEM_FILE_HEADER = [
  'handle',
  'name',
  'category',
  'price',
  'stock',
  'images',
  'sku_code',
  'sku_price',
  'sku_stock',
  'spec:color',
];

/** A CSV file from rows of cells (quoted where needed, RFC 4180). */
export const csv = (rows: Array<Array<string | number>>): string =>
  `${rows
    .map((r) =>
      r
        .map((c) => {
          const text = String(c);
          return /[",\n\r]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
        })
        .join(','),
    )
    .join('\r\n')}\r\n`;

/**
 * A CSV file of `count` items of two SKUs each (sizes 40 and 41): handles `<handle>-N`, names
 * `<name> N`, SKU codes `<sku>-N-A` and `<sku>-N-B` — what the resume tests count by prefix.
 */
export const twoSkuItemsFile = (
  count: number,
  tag: { handle: string; name: string; category: string; sku: string },
): string =>
  csv([
    ['handle', 'name', 'category', 'price', 'sku_code', 'sku_stock', 'spec:size'],
    ...Array.from({ length: count }, (_, i) => [
      [`${tag.handle}-${i}`, `${tag.name} ${i}`, tag.category, '5', `${tag.sku}-${i}-A`, 1, '40'],
      [`${tag.handle}-${i}`, '', '', '', `${tag.sku}-${i}-B`, 2, '41'],
    ]).flat(),
  ]);

/** POST /admin/api/imports with `file` as the body. */
export const sendImport = (
  app: TestApp,
  token: string,
  file: string,
  query = '',
  contentType = 'text/csv',
): Promise<ApiResponse<ImportAnswer>> =>
  app.request(`/admin/api/imports${query ? `?${query}` : ''}`, {
    method: 'POST',
    rawBody: file,
    contentType,
    token,
  });

/** Polls the import until it has ended; its final state. */
export async function importEnded(app: TestApp, token: string, id: number, timeoutMs = 60_000): Promise<ImportAnswer> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const res = await app.request<ImportAnswer>(`/admin/api/imports/${id}`, { token });
    expect(res.status).toBe(200);
    if (!['queued', 'running'].includes(res.body.status)) return res.body;
    if (Date.now() > until) throw new Error(`import ${id} still ${res.body.status} after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Sends a file and waits for its import to end. */
export async function runImport(app: TestApp, token: string, file: string, query = '', contentType = 'text/csv') {
  const started = await sendImport(app, token, file, query, contentType);
  expect(started.status, started.text).toBe(202);
  return importEnded(app, token, started.body.id);
}

/** The form of a GraphQL multipart request uploading `file` to startImport (`args`: its other arguments). */
export function startImportForm(file: string, args = 'mode: upsert'): FormData {
  const form = new FormData();
  form.append(
    'operations',
    JSON.stringify({
      query: `mutation($file: File!) { startImport(file: $file, ${args}) { id } }`,
      variables: { file: null },
    }),
  );
  form.append('map', JSON.stringify({ 0: ['variables.file'] }));
  form.append('0', new Blob([file], { type: 'text/csv' }), 'items.csv');
  return form;
}

export interface MultipartAnswer {
  /** The answer came while the body's last bytes were still held back. */
  answeredBeforeEnd: boolean;
  status: number | undefined;
  connection: string | undefined;
  body: {
    data?: Record<string, { id: number }> | null;
    errors?: Array<{ message: string; extensions?: { code?: string } }>;
  };
}

/**
 * POSTs `form` to /graphql chunked (no Content-Length), 16 KiB a write. With `holdTail`, all but its
 * last 64 bytes, then nothing more until an answer comes or `whileHeld` has run (at most 5 s): the rest
 * follows only then, so an answer before it shows the server did not wait for the body's end.
 */
export async function sendMultipart(
  app: TestApp,
  form: FormData,
  headers: Record<string, string>,
  opts: { holdTail?: boolean; whileHeld?: () => Promise<void> } = {},
): Promise<MultipartAnswer> {
  const encoded = new Response(form);
  const bytes = Buffer.from(await encoded.arrayBuffer());
  const req = http.request(`${app.url}/graphql`, {
    method: 'POST',
    headers: { ...headers, 'content-type': encoded.headers.get('content-type') ?? '', 'transfer-encoding': 'chunked' },
  });
  const answer = new Promise<http.IncomingMessage>((resolve, reject) => {
    req.on('response', resolve);
    req.on('error', reject);
  });
  const head = opts.holdTail ? bytes.length - 64 : bytes.length;
  for (let at = 0; at < head; at += 16 * 1024) req.write(bytes.subarray(at, Math.min(at + 16 * 1024, head)));
  let early: http.IncomingMessage | undefined;
  if (opts.holdTail) {
    const held = opts.whileHeld ? opts.whileHeld() : sleep(5000);
    early = await Promise.race([answer, held.then(() => undefined)]);
  }
  if (!early) req.end(bytes.subarray(head));
  const res = await answer;
  let text = '';
  for await (const chunk of res) text += chunk;
  req.destroy();
  return {
    answeredBeforeEnd: early !== undefined,
    status: res.statusCode,
    connection: res.headers.connection,
    body: JSON.parse(text),
  };
}
