import { notFound } from '../errors/app-error.ts';
import { INT32_MAX } from '../validation/rules.ts';

/**
 * A path's id (`/api/v1/items/{id}`): a positive integer the database's int column can hold. Anything
 * else cannot name a row, so it is simply not found (contract §4.2) — never a validation error, never
 * a statement with an out-of-range value.
 */
export function pathIdOf(raw: string | undefined, what: string): number {
  const text = raw ?? '';
  const id = Number(text);
  if (!/^[1-9]\d{0,9}$/.test(text) || id > INT32_MAX) throw notFound(what);
  return id;
}
