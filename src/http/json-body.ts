/**
 * The JSON body rules of contract §1 and §7.1: bodies must be declared JSON (415), at most 100 KiB
 * once inflated (413), valid UTF-8 and valid JSON (400 MALFORMED_JSON). `Content-Encoding` gzip,
 * deflate and br are inflated; a corrupt or truncated stream is MALFORMED_JSON, another encoding 415.
 * Requests without a body pass untouched.
 */
import express, { type NextFunction, type Request, type Response } from 'express';
import { AppError } from '../errors/app-error.ts';

export const BODY_LIMIT_BYTES = 100 * 1024;

// `fatal`: invalid UTF-8 is refused instead of silently becoming U+FFFD (contract §7.1).
const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Runs on the raw (inflated) bytes before they are decoded and parsed. */
function verifyUtf8(_req: unknown, _res: unknown, body: Buffer, charset: string): void {
  if (charset !== 'utf-8' && charset !== 'utf8') {
    throw Object.assign(new Error('charset'), { type: 'charset.unsupported' });
  }
  try {
    utf8.decode(body);
  } catch {
    throw Object.assign(new Error('invalid UTF-8'), { type: 'entity.parse.failed' });
  }
}

const parseJson = express.json({ limit: BODY_LIMIT_BYTES, strict: false, type: () => true, verify: verifyUtf8 });

function hasBody(req: Request): boolean {
  const length = req.get('content-length');
  return req.get('transfer-encoding') !== undefined || (length !== undefined && length !== '0');
}

export function jsonBody(req: Request, res: Response, next: NextFunction): void {
  if (!hasBody(req)) {
    next();
    return;
  }
  if (!req.is('application/json')) {
    next(new AppError('UNSUPPORTED_MEDIA_TYPE', 'Send the request body as application/json.'));
    return;
  }
  parseJson(req, res, (err?: unknown) => {
    if (!err) return next();
    const type = (err as { type?: string }).type;
    if (type === 'entity.too.large') {
      return next(new AppError('PAYLOAD_TOO_LARGE', `The request body exceeds ${BODY_LIMIT_BYTES} bytes.`));
    }
    if (type === 'entity.parse.failed') {
      return next(new AppError('MALFORMED_JSON', 'The request body is not valid JSON.'));
    }
    if (type === 'charset.unsupported' || type === 'encoding.unsupported') {
      return next(
        new AppError(
          'UNSUPPORTED_MEDIA_TYPE',
          'Send the request body as UTF-8 JSON, identity or gzip, deflate, br encoded.',
        ),
      );
    }
    // Anything else the reader calls a client error — a corrupt or truncated compressed stream
    // (zlib's Z_DATA_ERROR / Z_BUF_ERROR), a body shorter than its Content-Length — is an unreadable body.
    if ((err as { status?: number }).status === 400) {
      return next(new AppError('MALFORMED_JSON', 'The request body could not be read as JSON.'));
    }
    next(err);
  });
}
