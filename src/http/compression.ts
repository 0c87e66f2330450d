/**
 * Response compression (contract §7.5): answers over 1 KiB go out as br or gzip (deflate for a client
 * that accepts nothing else) when the client accepts it. An answer that already carries
 * `Content-Encoding` — the catalogue's, compressed once and cached (catalog-answer.ts) — is left as is.
 */
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import compression from 'compression';
import type { Request, Response } from 'express';

/** Answers of at most this many bytes are sent as they are: compressing them saves less than it costs. */
export const COMPRESS_OVER_BYTES = 1024;

export const compressLargeAnswers = compression({
  // compression's threshold is the smallest size it compresses.
  threshold: COMPRESS_OVER_BYTES + 1,
});

const compressors: Record<'br' | 'gzip', (body: Buffer) => Promise<Buffer>> = {
  // Quality 5: most of brotli's gain at a fraction of its top setting's time.
  br: (body) => promisify(brotliCompress)(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 5 } }),
  gzip: (body) => promisify(gzip)(body, { level: 6 }),
};

/** Compressed forms of one body, made on first request and kept with it (`encoded` is the body's own store). */
export type EncodedForms = Map<string, Promise<Buffer>>;

/**
 * Ends `res` with `body` — compressed once and reused when the client accepts br or gzip and the body is
 * over the threshold. For answers served many times (cached catalogue answers, GraphiQL's assets), where
 * the middleware would compress the same bytes on every request.
 */
export async function sendWithEncodings(req: Request, res: Response, body: Buffer, encoded: EncodedForms) {
  // Added to what is there already (`Vary: Origin` from CORS).
  res.vary('Accept-Encoding');
  const encoding = body.length > COMPRESS_OVER_BYTES ? req.acceptsEncodings('br', 'gzip') : false;
  if (encoding !== 'br' && encoding !== 'gzip') return void res.end(body);
  let form = encoded.get(encoding);
  if (!form) {
    form = compressors[encoding](body);
    encoded.set(encoding, form);
  }
  res.set('Content-Encoding', encoding).end(await form);
}
