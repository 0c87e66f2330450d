/**
 * `Idempotency-Key` for item creation (contract §4.4) and stock adjustments (§12.3). The key is
 * claimed in the same transaction as the write, so a retry — even one racing the first request —
 * either replays what the first request did or, with a different body, is refused; never a second write.
 */
import { createHash } from 'node:crypto';
import { isUniqueViolation } from '../db/prisma-errors.ts';
import { AppError } from '../errors/app-error.ts';
import type { Prisma } from '../generated/prisma/client.ts';
import type { RequestContext } from '../request-context.ts';

/** How long a key is remembered. */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

/** The `Idempotency-Key` request header as /openapi.json documents it (its rules: item.schema.ts). */
export const IDEMPOTENCY_KEY_HEADER = {
  name: 'Idempotency-Key',
  description:
    'Optional, 1..255 characters (a fresh UUID per intended item is a good choice), remembered per admin (or API key) for 24 h. ' +
    'A retry with the same key and the same body creates nothing and answers 201 with the item the first request ' +
    'created (same id and Location; 404 if it was deleted since); the same key with another body is ' +
    '409 IDEMPOTENCY_CONFLICT. A body that fails validation is 400 whatever the key.',
  schema: { type: 'string', minLength: 1, maxLength: 255 },
};

type Tx = Prisma.TransactionClient;

/** sha256 of the request with object keys sorted, so the same body always hashes the same. */
export function requestHash(input: unknown): string {
  return createHash('sha256').update(JSON.stringify(input, sortedKeys)).digest('hex');
}

function sortedKeys(_key: string, value: unknown): unknown {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  return Object.fromEntries(Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/**
 * Runs `create` (which returns the new row's id) in a transaction that also records `key`; when the
 * actor (`owner`: `admin:1`, `api_key:3`) already used `key`, returns the recorded id instead (same body) or throws 409 (other body).
 */
export async function createOnce(
  ctx: RequestContext,
  owner: string,
  key: string,
  input: unknown,
  create: (tx: Tx) => Promise<number>,
): Promise<number> {
  const hash = requestHash(input);
  const { prisma } = ctx.db;
  const replayed = await replay(ctx, owner, key, hash);
  if (replayed !== undefined) return replayed;
  try {
    return await prisma.$transaction(async (tx) => {
      const now = new Date();
      // Forget expired keys here (indexed on expires_at), so the table never grows without bound.
      await tx.idempotencyRecord.deleteMany({ where: { expiresAt: { lte: now } } });
      const id = await create(tx);
      // A concurrent request holding the same key makes this insert wait for it, then fail: this
      // transaction (and its item) is rolled back and the request replays the winner's result.
      await tx.idempotencyRecord.create({
        data: {
          owner,
          key,
          requestHash: hash,
          responseStatus: 201,
          responseBody: { itemId: id },
          expiresAt: new Date(now.getTime() + IDEMPOTENCY_TTL_MS),
        },
      });
      return id;
    });
  } catch (err) {
    if (!isUniqueViolation(err)) throw err;
    const replayedAfterRace = await replay(ctx, owner, key, hash);
    if (replayedAfterRace === undefined) throw err;
    return replayedAfterRace;
  }
}

/** The id recorded for a live `key`, or undefined; 409 when the key came with another body. */
async function replay(ctx: RequestContext, owner: string, key: string, hash: string): Promise<number | undefined> {
  const record = await ctx.db.prisma.idempotencyRecord.findUnique({ where: { owner_key: { owner, key } } });
  if (!record || record.expiresAt <= new Date()) return undefined;
  if (record.requestHash !== hash) {
    throw new AppError('IDEMPOTENCY_CONFLICT', 'This Idempotency-Key was already used with a different request body.');
  }
  ctx.log.info({ by: owner }, 'item creation replayed for its Idempotency-Key');
  return (record.responseBody as { itemId: number }).itemId;
}

/**
 * Runs `run` in a transaction that first claims `key` for the actor `owner` and then records `run`'s
 * answer with it; returns that answer. When the key is already live, returns the recorded answer
 * without running anything (same `request`) or throws 409 (another one). A request racing the first
 * with the same key waits at the claim until the first commits, then replays — it never runs. A
 * `run` that throws releases the key with everything else: a refused request is not remembered.
 * `request` should name the operation, so a key reused for another operation is a conflict; the
 * answer is stored as JSON, so it must be plain data.
 */
export async function answerOnce<T>(
  ctx: RequestContext,
  owner: string,
  key: string,
  request: unknown,
  run: (tx: Tx) => Promise<T>,
): Promise<T> {
  const hash = requestHash(request);
  const replayed = await replayAnswer<T>(ctx, owner, key, hash);
  if (replayed !== undefined) return replayed;
  try {
    return await ctx.db.prisma.$transaction(async (tx) => {
      const now = new Date();
      await tx.idempotencyRecord.deleteMany({ where: { expiresAt: { lte: now } } });
      // Claimed before the write: a concurrent request holding the same key waits on this insert
      // (the unique key) and, once this commits, fails it and replays — it never touches the rows.
      const { id } = await tx.idempotencyRecord.create({
        data: {
          owner,
          key,
          requestHash: hash,
          responseStatus: 200,
          responseBody: {},
          expiresAt: new Date(now.getTime() + IDEMPOTENCY_TTL_MS),
        },
        select: { id: true },
      });
      const answer = await run(tx);
      await tx.idempotencyRecord.update({
        where: { id },
        data: { responseBody: { answer } as Prisma.InputJsonObject },
      });
      return answer;
    });
  } catch (err) {
    if (!isUniqueViolation(err)) throw err;
    const replayedAfterRace = await replayAnswer<T>(ctx, owner, key, hash);
    if (replayedAfterRace === undefined) throw err;
    return replayedAfterRace;
  }
}

/** The answer recorded for a live `key`, or undefined; 409 when the key came with another request. */
async function replayAnswer<T>(ctx: RequestContext, owner: string, key: string, hash: string): Promise<T | undefined> {
  const record = await ctx.db.prisma.idempotencyRecord.findUnique({ where: { owner_key: { owner, key } } });
  if (!record || record.expiresAt <= new Date()) return undefined;
  const body = record.responseBody as { answer?: T };
  // A key first used for an item creation holds `{ itemId }`: another request than this one.
  if (record.requestHash !== hash || body.answer === undefined) {
    throw new AppError('IDEMPOTENCY_CONFLICT', 'This Idempotency-Key was already used with a different request body.');
  }
  ctx.log.info({ by: owner }, 'answer replayed for its Idempotency-Key');
  return body.answer;
}
