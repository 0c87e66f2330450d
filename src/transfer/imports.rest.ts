/**
 * REST routes of contract §13.2: start an import (the file as the body), read one, list them, cancel
 * one — each the GraphQL operation of the same name with REST names. (The errors file is CSV, not
 * JSON: imports.http.ts.)
 */

import { pathIdOf } from '../rest/path-id.ts';
import type { RestRequest, RestRoute } from '../rest/route.ts';

/** The Import with REST names. */
export const REST_IMPORT_FIELDS = /* GraphQL */ `
  id status format mode dry_run: dryRun atomic rows_total: rowsTotal rows_done: rowsDone
  items { created updated unchanged failed }
  errors { row handle field message }
  errors_csv_url: errorsCsvUrl created_at: createdAt started_at: startedAt finished_at: finishedAt
  actor { type id name }`;

const importIdOf = (req: RestRequest): { id: number } => ({ id: pathIdOf(req.params.id, 'import') });

const IMPORT_ID = { description: "An import's `id`.", schema: { type: 'integer', minimum: 1 } };

/** JSON Lines when the body says so and `format` is not given; CSV otherwise. */
const formatOf = (req: RestRequest): string | undefined =>
  req.queryAll('format')[0] ??
  (/^application\/(x-)?ndjson|^application\/jsonl/i.test(req.header('content-type') ?? '') ? 'jsonl' : undefined);

const location = (body: { id?: number }) => ({ Location: `/admin/api/imports/${body.id}` });

export const importRoutes: RestRoute[] = [
  {
    method: 'POST',
    path: '/admin/api/imports',
    summary: 'Import items from a CSV or JSON Lines file, as a job (admin): 202 with the queued import',
    tag: 'Import and export',
    document: /* GraphQL */ `
      mutation RestStartImport($file: File!, $format: ImportFormat, $mode: ImportMode, $dryRun: Boolean, $atomic: Boolean) {
        startImport(file: $file, format: $format, mode: $mode, dryRun: $dryRun, atomic: $atomic) { ${REST_IMPORT_FIELDS} }
      }`,
    input: { from: 'query' },
    fileBody: { types: ['text/csv', 'application/x-ndjson', 'application/jsonl'], variable: 'file' },
    variables: (req) => ({ file: req.body, ...(formatOf(req) ? { format: formatOf(req) } : {}) }),
    result: 'startImport',
    status: 202,
    headers: location,
    successHeaders: { Location: { description: 'Where the import’s progress is read.', schema: { type: 'string' } } },
    errors: ['PAYLOAD_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE'],
    // A dry run: sent as it stands it checks the file and writes nothing.
    example: {
      query: { dry_run: true },
      body:
        'handle,name,category,price,stock,sku_code,sku_stock,spec:color\r\n' +
        'docs-example-boot,Docs example boot,Shoes > Boots,59.90,10,DOC-BOOT-RED,4,red\r\n' +
        'docs-example-boot,,,,,DOC-BOOT-BLUE,6,blue\r\n',
      description: 'The queued import; follow `Location` (or `import(id)`) for its progress and outcome.',
    },
  },
  {
    method: 'GET',
    path: '/admin/api/imports',
    summary: "Every admin's imports, newest first (admin)",
    tag: 'Import and export',
    document: /* GraphQL */ `
      query RestImports($page: Int, $limit: Int) {
        imports(page: $page, limit: $limit) {
          imports { ${REST_IMPORT_FIELDS} } page limit total total_pages: totalPages
        }
      }`,
    input: { from: 'query' },
    result: 'imports',
    example: { query: { limit: 5 } },
  },
  {
    method: 'GET',
    path: '/admin/api/imports/:id',
    summary: 'One import with its progress and outcome (admin)',
    tag: 'Import and export',
    document: /* GraphQL */ `
      query RestImport($id: Int!) {
        import(id: $id) { ${REST_IMPORT_FIELDS} }
      }`,
    variables: importIdOf,
    pathParameter: IMPORT_ID,
    result: 'import',
    errors: ['NOT_FOUND'],
    example: { params: { id: 1 }, description: 'The import with its progress (the example above made import 1).' },
  },
  {
    method: 'POST',
    path: '/admin/api/imports/:id/cancel',
    summary: 'Stop an import after its current batch; what was committed stays (admin)',
    tag: 'Import and export',
    document: /* GraphQL */ `
      mutation RestCancelImport($id: Int!) {
        cancelImport(id: $id) { ${REST_IMPORT_FIELDS} }
      }`,
    variables: importIdOf,
    pathParameter: IMPORT_ID,
    result: 'cancelImport',
    errors: ['NOT_FOUND'],
    example: { params: { id: 1 }, description: 'The import as it stands (a finished one is answered unchanged).' },
  },
];
