/**
 * Public catalogue answers over HTTP (contract §7.6): a strong ETag per representation and `304 Not
 * Modified` when `If-None-Match` matches (cached or not), `Cache-Control` from CATALOG_MAX_AGE, and
 * the body compressed (br, gzip or deflate) when the client accepts it — made once per cached answer
 * and kept with it (prepared-body.ts).
 */
import type { Request, Response } from 'express';
import type { CachedAnswer } from '../catalog/catalog-cache.ts';
import { prepareBody, sendPrepared } from './prepared-body.ts';

/** An answer made from a JSON value: its bytes and their strong ETag. */
export const catalogAnswer = (value: unknown): CachedAnswer => prepareBody(JSON.stringify(value));

/** Sends `answer` as the contract's catalogue answer (200 or 304). */
export async function sendCatalogAnswer(
  req: Request,
  res: Response,
  answer: CachedAnswer,
  maxAgeSeconds: number,
): Promise<void> {
  res.type('application/json');
  await sendPrepared(req, res, answer, maxAgeSeconds > 0 ? `public, max-age=${maxAgeSeconds}` : 'no-cache');
}
