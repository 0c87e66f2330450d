/**
 * Audit entries (contract §10.2): who changed what, with each changed field's before and after. The
 * one place that turns a change into a row — and so the one place secrets are redacted, by field
 * name, whatever write produced them.
 */
import type { Actor } from '../auth/request-auth.ts';
import type { Prisma } from '../generated/prisma/client.ts';

export type AuditTargetType = 'item' | 'category' | 'customer' | 'admin' | 'api_key' | 'synonym_group' | 'webhook';

export interface AuditTarget {
  type: AuditTargetType;
  id: number | null;
}

/** `{ field: [before, after] }`; a field that did not exist before (or after) is null there. */
export type Changes = Record<string, [unknown, unknown]>;

export interface AuditRecord {
  /** `<target type>.<verb>`: `item.update`, `item.status` (setItemsStatus, one per item changed), `admin.totp_reset` … */
  action: `${AuditTargetType}.${string}`;
  target: AuditTarget;
  changes?: Changes;
}

/** Where a request came from, for the entry. */
export interface AuditOrigin {
  requestId: string;
  clientIp: string;
}

/** Fields whose values never reach the log, whichever write names them. */
const SECRET_FIELDS = new Set([
  'password',
  'passwordHash',
  'currentPassword',
  'newPassword',
  'totpSecret',
  'totpPendingSecret',
  'secret',
  'previousSecret',
  'secretHash',
  'recoveryCodes',
  'codeHash',
  'token',
  'accessToken',
  'otp',
]);

export const REDACTED = '[redacted]';

/** A value as JSON stores it (dates as ISO strings, decimals as their strings). */
const plain = (value: unknown): unknown => (value === undefined ? null : JSON.parse(JSON.stringify(value)));

/** The fields that differ between two snapshots of a row (null: the row did not exist). */
export function changesBetween(before: Record<string, unknown> | null, after: Record<string, unknown> | null): Changes {
  const changes: Changes = {};
  for (const field of new Set([...Object.keys(before ?? {}), ...Object.keys(after ?? {})])) {
    const was = plain(before?.[field]);
    const is = plain(after?.[field]);
    if (JSON.stringify(was) !== JSON.stringify(is)) changes[field] = [was, is];
  }
  return changes;
}

function redacted(changes: Changes): Changes {
  return Object.fromEntries(
    Object.entries(changes).map(([field, pair]) => [
      field,
      SECRET_FIELDS.has(field) ? [pair[0] === null ? null : REDACTED, pair[1] === null ? null : REDACTED] : pair,
    ]),
  );
}

/** The row of one entry, secrets redacted. */
export function auditRow(origin: AuditOrigin, actor: Actor, record: AuditRecord): Prisma.AuditEntryCreateManyInput {
  return {
    actorType: actor.type,
    actorId: actor.id,
    actorName: actor.name,
    action: record.action,
    targetType: record.target.type,
    targetId: record.target.id,
    changes: redacted(record.changes ?? {}) as Prisma.InputJsonObject,
    requestId: origin.requestId,
    ip: origin.clientIp,
  };
}

/**
 * The statement that inserts entries (rows from auditRow), their values in ONE parameter `$<param>`
 * (auditRowsJson): every many-entry write's insert — an admin write's, run as a part of its events'
 * statement so its entries and events cost one round trip (audit/admin-write.ts), and an import batch's.
 * An entry without `at` is at the transaction's time (the column's default).
 */
export const auditInsertSql = (param: number) => `INSERT INTO audit_log
    (at, actor_type, actor_id, actor_name, action, target_type, target_id, changes, request_id, ip)
  SELECT COALESCE(r.at, now()), r."actorType", r."actorId", r."actorName", r.action, r."targetType", r."targetId",
         r.changes, r."requestId", r.ip
    FROM json_to_recordset($${param}::json) AS r(at timestamptz, "actorType" text, "actorId" int, "actorName" text,
         action text, "targetType" text, "targetId" int, changes jsonb, "requestId" text, ip text)`;

/** auditInsertSql's parameter: the rows, each at `at` when given. */
export const auditRowsJson = (rows: Prisma.AuditEntryCreateManyInput[], at?: Date) =>
  JSON.stringify(at ? rows.map((row) => ({ ...row, at: at.toISOString() })) : rows);
