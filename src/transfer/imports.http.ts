/**
 * `GET /admin/api/imports/{id}/errors.csv` (contract §13.2): every failed row of an import with its
 * original columns and `error`, streamed as CSV (csv-stringify) from the import's failures.
 */

import { stringify } from 'csv-stringify';
import { type Request, type Response, Router } from 'express';
import { notFound } from '../errors/app-error.ts';
import { pathIdOf } from '../rest/path-id.ts';
import type { ContextFor } from '../rest/run.ts';
import { errorRows, readImport } from './imports.service.ts';

export function importErrorsRoutes(contextFor: ContextFor): Router {
  const router = Router();
  router.get('/admin/api/imports/:id/errors.csv', async (req: Request, res: Response) => {
    res.set('Cache-Control', 'no-store');
    const ctx = contextFor(req, res, false);
    await ctx.auth.permit('catalogRead');
    const id = pathIdOf(String(req.params.id), 'import');
    const row = await readImport(ctx, id);
    if (!row) throw notFound('import');
    res.set('Content-Type', 'text/csv; charset=utf-8');
    res.set('Content-Disposition', `attachment; filename="import-${id}-errors.csv"`);
    const csv = stringify();
    csv.pipe(res);
    try {
      for await (const line of errorRows(ctx, row)) {
        if (!csv.write(line)) await new Promise((resolve) => csv.once('drain', resolve));
      }
      csv.end();
    } catch (err) {
      // Cut off, never ended cleanly: a client must not hold a shorter file that looks whole.
      ctx.log.warn({ err }, 'errors file broken off');
      res.destroy();
    }
  });
  return router;
}
