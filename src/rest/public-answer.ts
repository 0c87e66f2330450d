/**
 * The answers of public reads over HTTP (contract §7.6): a strong ETag per representation and `304
 * Not Modified` when `If-None-Match` matches (cached or not), `Cache-Control: public, max-age=N`
 * (or `no-cache`), and the body compressed (br, gzip or deflate) when the client accepts it — made
 * once per kept answer and kept with it (http/prepared-body.ts).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { type PreparedBody, prepareBody, sendPrepared } from '../http/prepared-body.ts';

/** An answer made from a JSON value: its bytes and their strong ETag. */
export const publicAnswer = (value: unknown): PreparedBody => prepareBody(JSON.stringify(value));

/** Sends `answer` as a public read's answer (200 or 304); a promise only while it is compressed (sendPrepared). */
export function sendPublicAnswer(
  req: IncomingMessage,
  res: ServerResponse,
  answer: PreparedBody,
  maxAgeSeconds: number,
): Promise<void> | undefined {
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  return sendPrepared(req, res, answer, maxAgeSeconds > 0 ? `public, max-age=${maxAgeSeconds}` : 'no-cache');
}
