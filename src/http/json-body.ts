/**
 * The JSON body rules of contract §1: bodies must be declared JSON (415), at most 100 KiB (413),
 * and parse (400 MALFORMED_JSON). Requests without a body pass untouched.
 */
import express, { type NextFunction, type Request, type Response } from 'express';
import { AppError } from '../errors/app-error.ts';

export const BODY_LIMIT_BYTES = 100 * 1024;

const parseJson = express.json({ limit: BODY_LIMIT_BYTES, strict: false, type: () => true });

function hasBody(req: Request): boolean {
  const length = req.get('content-length');
  return req.get('transfer-encoding') !== undefined || (length !== undefined && length !== '0');
}

export function jsonBody(req: Request, res: Response, next: NextFunction): void {
  if (!hasBody(req)) return next();
  if (!req.is('application/json')) {
    return next(new AppError('UNSUPPORTED_MEDIA_TYPE', 'Send the request body as application/json.'));
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
      return next(new AppError('UNSUPPORTED_MEDIA_TYPE', 'Send the request body as UTF-8 JSON.'));
    }
    next(err);
  });
}
