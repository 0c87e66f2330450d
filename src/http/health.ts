/** Load-balancer probes: `/healthz` says the process is up, `/readyz` that the database answers. */
import { Router } from 'express';
import type { Database } from '../db/database.ts';
import { AppError, serviceUnavailable } from '../errors/app-error.ts';

// A probe must answer within the load balancer's own probe timeout (often 1–5 s), so it does not wait
// out a statement timeout: a database that has not answered `SELECT 1` in this time is not ready.
// The statement itself still ends by its own timeout, which also discards a silent connection.
const READY_TIMEOUT_MS = 2_000;

/** Resolves true when `SELECT 1` answers within READY_TIMEOUT_MS, false when it fails or takes longer. */
async function databaseAnswers(db: Database): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<boolean>((resolve) => (timer = setTimeout(resolve, READY_TIMEOUT_MS, false)));
  const answered = db.sql.query('SELECT 1').then(
    () => true,
    () => false,
  );
  try {
    return await Promise.race([answered, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** The probe routes; `isShuttingDown` turns /readyz 503 as soon as a stop begins. */
export function healthRoutes(db: Database, isShuttingDown: () => boolean): Router {
  const router = Router();
  router.get('/healthz', (_req, res) => {
    res.set('Cache-Control', 'no-store').json({ status: 'ok' });
  });
  router.get('/readyz', async (_req, res, next) => {
    if (isShuttingDown()) return next(new AppError('SERVICE_UNAVAILABLE', 'The service is shutting down.'));
    // Under load the pool is busy and a probe would queue behind the requests it serves; a statement
    // that just succeeded (none failed since) already says the database answers.
    const ready = db.answeredWithin(READY_TIMEOUT_MS) || (await databaseAnswers(db));
    if (ready) res.set('Cache-Control', 'no-store').json({ status: 'ready' });
    else next(serviceUnavailable());
  });
  return router;
}
