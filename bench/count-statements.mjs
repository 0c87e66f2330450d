/**
 * Preloaded into the service by bench/webhook-cost.ts (NODE_OPTIONS=--import): counts every statement
 * sent through `pg` — Prisma's, the raw SQL pools', pg-boss's — by the connection's application_name,
 * into STATEMENT_COUNT_DIR/<pid>.json every 100 ms. PostgreSQL's own counter (pg_stat_statements) needs
 * a server-wide preload that a shared server may not have.
 */
import { renameSync, writeFileSync } from 'node:fs';
import pg from 'pg';

const dir = process.env.STATEMENT_COUNT_DIR;
if (dir) {
  const counts = {};
  const query = pg.Client.prototype.query;
  pg.Client.prototype.query = function (...args) {
    const app = this.connectionParameters?.application_name || 'other';
    counts[app] = (counts[app] ?? 0) + 1;
    return query.apply(this, args);
  };
  // Written aside and renamed: a reader never sees a file half written.
  setInterval(() => {
    writeFileSync(`${dir}/${process.pid}.tmp`, JSON.stringify(counts));
    renameSync(`${dir}/${process.pid}.tmp`, `${dir}/${process.pid}.json`);
  }, 100).unref();
}
