/**
 * `Idempotency-Key` for item creation (contract §4.4). The key is claimed in the same transaction
 * that creates the item, so a retry — even one racing the first request — either replays the item
 * the first request created or, with a different body, is refused; never a second item.
 */
import { createHash } from 'node:crypto';
import { AppError } from '../errors/app-error.ts';
import { Prisma } from '../generated/prisma/client.ts';
import type { ServiceContext } from '../graphql/context.ts';

/** How long a key is remembered. */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

type Tx = Prisma.TransactionClient;

/** sha256 of the request with object keys sorted, so the same body always hashes the same. */
export function requestHash(input: unknown): string {
  return createHash('sha256').update(JSON.stringify(input, sortedKeys)).digest('hex');
}

function sortedKeys(_key: string, value: unknown): unknown {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  return Object.fromEntries(Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

const isUniqueViolation = (err: unknown) => err instanceof Prisma.PrismaClientKnownRequestError && err.code === 'P2002';

/**
 * Runs `create` (which returns the new row's id) in a transaction that also records `key`; when the
 * admin already used `key`, returns the recorded id instead (same body) or throws 409 (other body).
 */
export async function createOnce(
  ctx: ServiceContext & { actingAdminId: number },
  key: string,
  input: unknown,
  create: (tx: Tx) => Promise<number>,
): Promise<number> {
  const adminId = ctx.actingAdminId;
  const hash = requestHash(input);
  const { prisma } = ctx.db;
  const replayed = await replay(ctx, adminId, key, hash);
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
          adminId,
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
    const replayedAfterRace = await replay(ctx, adminId, key, hash);
    if (replayedAfterRace === undefined) throw err;
    return replayedAfterRace;
  }
}

/** The id recorded for a live `key`, or undefined; 409 when the key came with another body. */
async function replay(ctx: ServiceContext, adminId: number, key: string, hash: string): Promise<number | undefined> {
  const record = await ctx.db.prisma.idempotencyRecord.findUnique({ where: { adminId_key: { adminId, key } } });
  if (!record || record.expiresAt <= new Date()) return undefined;
  if (record.requestHash !== hash) {
    throw new AppError('IDEMPOTENCY_CONFLICT', 'This Idempotency-Key was already used with a different request body.');
  }
  ctx.log.info({ admin_id: adminId }, 'item creation replayed for its Idempotency-Key');
  return (record.responseBody as { itemId: number }).itemId;
}
