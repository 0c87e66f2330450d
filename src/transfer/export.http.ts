/**
 * `GET /admin/api/exports/items` (contract §13.3): the items the admin list's filters match, as a file
 * to download. A route of its own rather than a row of the table: its answer is a file streamed batch
 * by batch, not a GraphQL operation's value. It keeps the rows' rules all the same — the scope checked
 * first (auth/scopes.ts), the list's query read and validated as the list reads it (every problem
 * named in REST's spelling), `Cache-Control: no-store`, problem+json — and is described for /docs
 * beside them (itemExportRoute).
 */
import type { NextFunction, Request, Response } from 'express';
import { realmOfScope, requireScopes, rolesSentence, type Scope } from '../auth/scopes.ts';
import { adminItemFilterOf } from '../catalog/item-admin.service.ts';
import { AppError, type FieldError } from '../errors/app-error.ts';
import type { DescribedRoute } from '../openapi/described-route.ts';
import type { RequestContext } from '../request-context.ts';
import { restNamed } from '../rest/run.ts';
import { EXPORT_FORMATS, type ExportFormat, type ExportInput, exportInputOf } from './export.schema.ts';
import { EXPORT_MEDIA, prepareItemExport } from './export.service.ts';
import { pacedWriter, SinkClosedError } from './paced-writer.ts';

export const ITEM_EXPORT_PATH = '/admin/api/exports/items';
/** Who may export: whoever may read the admin list (contract §13.3). */
const EXPORT_SCOPES: Scope[] = ['catalogRead'];

/** Every value of a query parameter, in order; none: an empty list (as a row's `queryAll`). */
function queryAll(query: Record<string, unknown>, name: string): string[] {
  const value = query[name];
  const list = Array.isArray(value) ? value : value === undefined ? [] : [value];
  return list.filter((v): v is string => typeof v === 'string');
}

/**
 * The export's request from its query string (export.schema.ts), every problem named in REST's names.
 * Only the list's filters and `format` are read: page, limit, sort and facets do not apply.
 */
export function exportRequestOf(query: Record<string, unknown>): ExportInput {
  const { format, category_id, keyword, min_price, max_price, in_stock } = query;
  try {
    return exportInputOf({
      format,
      status: queryAll(query, 'status'),
      category_id,
      keyword,
      min_price,
      max_price,
      in_stock,
      spec: queryAll(query, 'spec'),
    });
  } catch (err) {
    throw restNamed(err);
  }
}

/** `items-2026-11-27.csv`: the day of the export (UTC), the format's extension. */
export const exportFileName = (format: ExportFormat, now = new Date()) =>
  `items-${now.toISOString().slice(0, 10)}.${EXPORT_MEDIA[format].extension}`;

/**
 * The route's handler; `contextOf` gives the request's context (the one REST and GraphQL share). Once
 * the first bytes have gone, a failure cannot become an error answer any more: the response is then
 * destroyed, so the client sees a broken transfer — never a shorter file that looks whole (Express's
 * error layer would end it cleanly).
 */
export function itemExportHandler(contextOf: (req: Request, res: Response) => RequestContext) {
  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    // As every admin REST answer (rest/run.ts): never kept by a cache, errors included.
    res.set('Cache-Control', 'no-store');
    const ctx = contextOf(req, res);
    try {
      // Who is asking comes before what they sent, as in the route table.
      await requireScopes(ctx, EXPORT_SCOPES);
      const { format, filters } = exportRequestOf(req.query as Record<string, unknown>);
      // HEAD: the head a GET would get, without reading the catalogue.
      const file =
        req.method === 'HEAD'
          ? undefined
          : await prepareItemExport(ctx.db.sql, await adminItemFilterOf(ctx, filters), format);
      res.status(200);
      // Set as they are (Express's `type` would add a charset to x-ndjson).
      res.setHeader('Content-Type', EXPORT_MEDIA[format].contentType);
      res.setHeader('Content-Disposition', `attachment; filename="${exportFileName(format)}"`);
      if (file) await file.writeTo(pacedWriter(res));
      res.end();
    } catch (err) {
      if (!res.headersSent) {
        // An error answer is no attachment.
        res.removeHeader('Content-Disposition');
        return next(err);
      }
      if (err instanceof SinkClosedError) {
        // The client went away: nothing to answer, and nothing more is read for it.
        ctx.log.info('export stopped: the client closed the connection');
        return;
      }
      ctx.log.error({ err }, 'export failed after its first bytes; the response is cut off');
      res.destroy();
    }
  };
}

/** What a bad request of the route answers (the VALIDATION_FAILED example of /docs): the real errors. */
function validationExample(): FieldError[] {
  try {
    exportRequestOf({ format: 'xlsx', category_id: '0' });
  } catch (err) {
    if (err instanceof AppError && err.fieldErrors) return err.fieldErrors;
  }
  throw new Error('an export of format xlsx was not refused');
}

/** The route as /openapi.json describes it (openapi/described-route.ts). */
export const itemExportRoute: DescribedRoute = {
  method: 'GET',
  path: ITEM_EXPORT_PATH,
  summary:
    'Download every item the admin list’s filters match, with all its SKUs, in id order, as a CSV or JSON Lines file (admin)',
  tag: 'Import and export',
  operationId: 'ExportItems',
  realm: realmOfScope('catalogRead'),
  roles: rolesSentence(EXPORT_SCOPES),
  // The list's filters, read and validated as the list reads them; an export has no pages and no order.
  sharesQueryOf: { method: 'GET', path: '/admin/api/items', omit: ['page', 'limit', 'sort', 'facets'] },
  queryParameters: [
    {
      name: 'format',
      description:
        '`csv` (RFC 4180 with a byte order mark: one row per SKU, the item’s fields on its first row, a `spec:<name>` ' +
        'column per spec name) or `jsonl` (one item per line, the admin Item with `category` as a path) — contract §13.1.',
      schema: { type: 'string', enum: [...EXPORT_FORMATS], default: 'csv' },
    },
  ],
  success: {
    status: 200,
    description:
      'The file, streamed: every matching item (every state unless `status` says otherwise) with all its SKUs and ' +
      'images, in id order. A failure after the first bytes breaks the transfer off rather than end a shorter file.',
    headers: {
      'Content-Disposition': {
        description: '`attachment; filename="items-<YYYY-MM-DD>.csv"` (`.jsonl`): the day of the export, UTC.',
        schema: { type: 'string' },
      },
    },
    content: {
      [EXPORT_MEDIA.csv.mediaType]: { schema: { type: 'string' } },
      [EXPORT_MEDIA.jsonl.mediaType]: { schema: { type: 'string' } },
    },
  },
  validationExample: validationExample(),
  example: { query: { format: 'csv' } },
};
