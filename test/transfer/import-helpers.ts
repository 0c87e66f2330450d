/** Imports through the real server (contract §13.2): send a file, wait for the import to end. */
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
