/**
 * Bodies served many times unchanged — cached catalogue answers (contract §7.6), GraphiQL's and
 * Swagger UI's assets (§7.5) — sent with what HTTP caching needs and compressed once, not per request.
 *
 * Each representation has its own strong validator (RFC 9110 §8.8.3): the identity body's ETag is a
 * hash of its bytes, and a compressed form's is the same tag with the coding appended (`"…-br"`), so
 * a cache holding the gzip bytes never gets a 304 for a br request, and the other way round.
 * `If-None-Match` is compared (weakly, as RFC 9110 §13.1.2 says) with the representation this request
 * would get; a match is 304 with the same validators and `Vary` as the 200, HEAD gets the 200's headers.
 */
import { hash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { promisify } from 'node:util';
import { brotliCompress, constants, deflate, gzip } from 'node:zlib';
import accepts from 'accepts';
import vary from 'vary';
import { memoBy } from '../memo.ts';
import { COMPRESS_OVER_BYTES } from './compression.ts';

type Coding = 'br' | 'gzip' | 'deflate';

/** One body, its strong ETag, and its compressed forms (each made on first demand, then kept). */
export interface PreparedBody {
  body: Buffer;
  /** Strong ETag of the identity bytes, quoted. */
  etag: string;
  /** Made on the first compressed form: most kept answers (small ones) never have one. */
  encoded?: Map<string, Promise<Buffer>>;
}

const compressors: Record<Coding, (body: Buffer) => Promise<Buffer>> = {
  // Quality 5: most of brotli's gain at a fraction of its top setting's time.
  br: (body) => promisify(brotliCompress)(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 5 } }),
  gzip: (body) => promisify(gzip)(body, { level: 6 }),
  deflate: (body) => promisify(deflate)(body, { level: 6 }),
};

/** A body ready to be served many times. */
export function prepareBody(body: Buffer | string): PreparedBody {
  const bytes = typeof body === 'string' ? Buffer.from(body) : body;
  // One-shot `hash`: half the time of a Hash object's update/digest (every uncached answer pays it).
  return { body: bytes, etag: `"${hash('sha1', bytes, 'base64url')}"`, encoded: undefined };
}

/**
 * Makes `prepared` fit to be kept (the answer cache, the docs' assets) — its bytes moved into a
 * buffer of their own — and returns it. A small `Buffer.from` (under 4 KB) is cut from a shared 8 KB
 * slab, and a kept body would hold the whole slab while its neighbours are let go — measured behind a
 * full 64 MB cache: 78 MB of buffers for ~45 MB of bodies. Moved only when kept: an answer served once
 * and dropped (the cache off, a miss not kept) keeps the cheaper slab (1 µs less per answer, measured).
 */
export function keepable(prepared: PreparedBody): PreparedBody {
  const { body } = prepared;
  if (body.byteLength === body.buffer.byteLength) return prepared;
  const own = Buffer.allocUnsafeSlow(body.byteLength);
  body.copy(own);
  prepared.body = own;
  return prepared;
}

/** The ETag of `prepared` as sent with `coding` (identity: its own). */
const etagOf = (prepared: PreparedBody, coding: Coding | undefined) =>
  coding ? `${prepared.etag.slice(0, -1)}-${coding}"` : prepared.etag;

/** True when an `If-None-Match` header names `etag` (weak comparison), or is `*`. */
function matches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  return ifNoneMatch.split(',').some((tag) => {
    const t = tag.trim();
    return t === '*' || t === etag || t === `W/${etag}`;
  });
}

/** Codings in the order this server prefers them (smallest first), as the compression middleware does. */
const CODINGS: readonly Coding[] = ['br', 'gzip', 'deflate'];

/** The coding this request gets: the first of CODINGS the client accepts, for a body worth compressing. */
function codingFor(req: IncomingMessage, prepared: PreparedBody): Coding | undefined {
  if (prepared.body.length <= COMPRESS_OVER_BYTES) return undefined;
  const header = req.headers['accept-encoding'];
  // No header: identity only (as the compression middleware reads it).
  if (header === undefined) return undefined;
  // Clients send one of a few headers (`gzip, deflate, br`): each is negotiated once.
  if (codingByHeader.has(header)) return codingByHeader.get(header);
  const accepted = accepts(req);
  const coding = CODINGS.find((c) => accepted.encodings(c) === c);
  if (codingByHeader.size >= KNOWN_HEADERS) codingByHeader.clear();
  codingByHeader.set(header, coding);
  return coding;
}

/** Accept-Encoding headers seen, with the coding each gets; emptied when it reaches KNOWN_HEADERS. */
const codingByHeader = new Map<string, Coding | undefined>();
const KNOWN_HEADERS = 256;

/**
 * `Vary` with `Accept-Encoding` added to what is there already, as the `vary` package writes it. The
 * values met are the service's own (none, or `Origin` from CORS), so each is merged once and kept.
 */
function varyOnEncoding(res: ServerResponse): void {
  const current = res.getHeader('Vary');
  if (typeof current !== 'string' && current !== undefined) {
    vary(res, 'Accept-Encoding');
    return;
  }
  res.setHeader('Vary', withEncoding(current ?? ''));
}

const withEncoding = memoBy((current: string) => vary.append(current, 'Accept-Encoding'));

/** `prepared` in `coding`: made on first demand, then kept with it. */
function encodedForm(prepared: PreparedBody, coding: Coding): Promise<Buffer> {
  prepared.encoded ??= new Map();
  let form = prepared.encoded.get(coding);
  if (!form) {
    form = compressors[coding](prepared.body);
    prepared.encoded.set(coding, form);
  }
  return form;
}

/**
 * Makes the form browsers ask for (brotli) ahead of the first request: for files known to be asked
 * for soon (the console's), so the first page after a start does not wait for their compression.
 */
export function precompress(prepared: PreparedBody): Promise<void> {
  if (prepared.body.length <= COMPRESS_OVER_BYTES) return Promise.resolve();
  return encodedForm(prepared, 'br').then(() => undefined);
}

/**
 * Sends `prepared` (the content type must be set): 304 when `If-None-Match` names the representation
 * this request would get, else 200 with that representation, compressed once and kept with the body.
 * Plain Node request and response: Express's routes and the front door (front-door.ts) both call it.
 * Returns a promise only while a compressed form is being made: an identity answer or a 304 is sent
 * before it returns (no promise, no turn of the microtask queue, on every small read).
 */
export function sendPrepared(
  req: IncomingMessage,
  res: ServerResponse,
  prepared: PreparedBody,
  cacheControl: string,
): Promise<void> | undefined {
  const coding = codingFor(req, prepared);
  varyOnEncoding(res);
  const etag = etagOf(prepared, coding);
  res.setHeader('ETag', etag);
  res.setHeader('Cache-Control', cacheControl);
  if (matches(req.headers['if-none-match'], etag)) {
    res.statusCode = 304;
    res.end();
    return;
  }
  if (!coding) {
    // Said up front (not chunked), whichever path sends it and whatever wraps `end` on the way.
    res.setHeader('Content-Length', String(prepared.body.length));
    res.end(prepared.body);
    return;
  }
  return encodedForm(prepared, coding).then((bytes) => {
    // Content-Length of the bytes sent: set here so HEAD says the same as GET.
    res.setHeader('Content-Encoding', coding);
    res.setHeader('Content-Length', String(bytes.length));
    res.end(bytes);
  });
}
