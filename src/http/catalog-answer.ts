/**
 * Public catalogue answers over HTTP (contract §7.6): a strong ETag on every one and `304 Not Modified`
 * when `If-None-Match` matches (cached or not), `Cache-Control` from CATALOG_MAX_AGE, and the body
 * compressed (br or gzip) when the client accepts it — made once per cached answer and kept with it.
 */
import { createHash } from 'node:crypto';
import type { Request, Response } from 'express';
import type { CachedAnswer } from '../catalog/catalog-cache.ts';
import { sendWithEncodings } from './compression.ts';

/** An answer made from a JSON value: its bytes and their strong ETag. */
export function catalogAnswer(value: unknown): CachedAnswer {
  const body = Buffer.from(JSON.stringify(value));
  const etag = `"${createHash('sha1').update(body).digest('base64url')}"`;
  return { body, etag, encoded: new Map() };
}

/** True when an `If-None-Match` header names `etag` (or is `*`). */
function matches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  return ifNoneMatch.split(',').some((tag) => {
    const t = tag.trim();
    return t === '*' || t === etag || t === `W/${etag}`;
  });
}

/** Sends `answer` as the contract's catalogue answer (200 or 304). */
export async function sendCatalogAnswer(
  req: Request,
  res: Response,
  answer: CachedAnswer,
  maxAgeSeconds: number,
): Promise<void> {
  res.set({ ETag: answer.etag, 'Cache-Control': maxAgeSeconds > 0 ? `public, max-age=${maxAgeSeconds}` : 'no-cache' });
  if (matches(req.get('if-none-match'), answer.etag)) {
    res.vary('Accept-Encoding').status(304).end();
    return;
  }
  res.type('application/json');
  await sendWithEncodings(req, res, answer.body, answer.encoded);
}
