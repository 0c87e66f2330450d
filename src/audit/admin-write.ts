/**
 * The one way an admin (or an API key, or an operator at the CLI) changes data: the write's statements
 * and its audit entries in one transaction (contract §10.2), then one log line per entry. A write
 * records what it changed through `audit`; one that records nothing is a bug and fails, so a new
 * write cannot forget its entry. Refused writes throw before commit and leave no entry.
 */
import { actorLabel } from '../auth/request-auth.ts';
import { appendEvents, type PendingEvent, type TxStatement } from '../events/event-log.ts';
import type { Prisma } from '../generated/prisma/client.ts';
import type { RequestContext } from '../request-context.ts';
import { type AuditRecord, auditInsertSql, auditRow, auditRowsJson } from './audit-log.ts';

export type Tx = Prisma.TransactionClient;

/** Records one audit entry of the running write. */
export type Audit = (record: AuditRecord) => void;

/** Records one event of the running write (contract §14.1), appended as its transaction's last statement. */
export type Emit = (event: PendingEvent) => void;

/** The entries' insert alone, and as a part of the events' statement (whose parameters end at `$6`). */
const AUDIT_ALONE = auditInsertSql(1);
const AUDIT_WITH_EVENTS = auditInsertSql(7);

/** Runs `write` in a transaction of its own. */
export const inTransaction =
  <T>(ctx: RequestContext) =>
  (write: (tx: Tx) => Promise<T>) =>
    ctx.db.prisma.$transaction(write);

/**
 * Runs one admin write. `transaction` is how its statements are committed: a transaction of its own
 * by default, or one that also does more (an Idempotency-Key's record), which may answer a replay
 * without running `write` at all — then nothing changed and nothing is recorded.
 */
export async function adminWrite<T>(
  ctx: RequestContext,
  write: (tx: Tx, audit: Audit, emit: Emit) => Promise<T>,
  transaction: (write: (tx: Tx) => Promise<T>) => Promise<T> = inTransaction<T>(ctx),
): Promise<T> {
  const actor = await ctx.auth.actor();
  const records: AuditRecord[] = [];
  const events: PendingEvent[] = [];
  const result = await transaction(async (tx) => {
    // A transaction retried from the start records afresh.
    records.length = 0;
    events.length = 0;
    const written = await write(
      tx,
      (record) => records.push(record),
      (event) => events.push(event),
    );
    if (records.length === 0) throw new Error('An admin write recorded no audit entry (audit/admin-write.ts).');
    const entries = auditRowsJson(
      records.map((record) => auditRow(ctx, actor, record)),
      new Date(),
    );
    // Last: the events' counter lock is held from here to the commit (events/event-log.ts). The audit
    // entries ride in the events' statement: one round trip fewer while the write holds its locks.
    const run: TxStatement = (text, params) => tx.$executeRawUnsafe(text, ...params);
    if (events.length === 0) await run(AUDIT_ALONE, [entries]);
    else await appendEvents(run, actor, events, { sql: AUDIT_WITH_EVENTS, param: entries });
    return written;
  });
  for (const { action, target } of records) {
    ctx.log.info({ action, target_type: target.type, target_id: target.id, by: actorLabel(actor) }, action);
  }
  return result;
}
