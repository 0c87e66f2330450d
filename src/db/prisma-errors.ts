/**
 * The Prisma error codes the services act on, named once (https://www.prisma.io/docs/orm/reference/error-reference).
 */
import { Prisma } from '../generated/prisma/client.ts';

const hasCode = (err: unknown, ...codes: string[]): boolean =>
  err instanceof Prisma.PrismaClientKnownRequestError && codes.includes(err.code);

/** A unique constraint refused the write (P2002): a taken username, a reused idempotency key. */
export const isUniqueViolation = (err: unknown) => hasCode(err, 'P2002');

/** A foreign key refused the write (P2003, P2014): the row it points at is gone, or is still pointed at. */
export const isForeignKeyViolation = (err: unknown) => hasCode(err, 'P2003', 'P2014');

/** The row to update or delete does not exist (P2025). */
export const isRecordMissing = (err: unknown) => hasCode(err, 'P2025');

/**
 * A unique constraint on `column` alone refused the write (a taken item handle). The driver adapters
 * name it differently: PGlite's by its fields (`["handle"]`), pg's by its index (`items_handle_key`).
 */
export function isUniqueViolationOn(err: unknown, column: string): boolean {
  if (!isUniqueViolation(err)) return false;
  const meta = JSON.stringify((err as Prisma.PrismaClientKnownRequestError).meta ?? {});
  return meta.includes(`"${column}"`) || meta.includes(`_${column}_key"`);
}
