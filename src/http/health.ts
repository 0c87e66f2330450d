/** Load-balancer probes: `/healthz` says the process is up, `/readyz` that the database answers. */
import { Router } from 'express';
import type { Database } from '../db/database.ts';
import { AppError, serviceUnavailable } from '../errors/app-error.ts';

export function healthRoutes(db: Database, isShuttingDown: () => boolean): Router {
  const router = Router();
  router.get('/healthz', (_req, res) => {
    res.set('Cache-Control', 'no-store').json({ status: 'ok' });
  });
  router.get('/readyz', async (_req, res, next) => {
    if (isShuttingDown()) return next(new AppError('SERVICE_UNAVAILABLE', 'The service is shutting down.'));
    try {
      await db.sql.query('SELECT 1');
      res.set('Cache-Control', 'no-store').json({ status: 'ready' });
    } catch {
      next(serviceUnavailable());
    }
  });
  return router;
}
