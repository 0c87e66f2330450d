/** Writes contract §2 errors as RFC 9457 `application/problem+json`. */
import { STATUS_CODES } from 'node:http';
import type { Response } from 'express';
import type { AppError } from '../errors/app-error.ts';

export function sendProblem(res: Response, err: AppError): void {
  const requestId = res.locals.requestId as string | undefined;
  if (err.status === 401 && err.realm) {
    res.set('WWW-Authenticate', `Bearer realm="${err.realm}"${err.tokenPresented ? ', error="invalid_token"' : ''}`);
  }
  if (err.retryAfter !== undefined) res.set('Retry-After', String(err.retryAfter));
  // A body refused for its size before it has all arrived is not read on: the connection ends with the
  // answer (kept alive, Node would read and drop the rest — up to the whole file — to reuse it).
  if (err.status === 413 && !res.req.complete) res.set('Connection', 'close');
  res
    .status(err.status)
    .type('application/problem+json')
    .send(
      JSON.stringify({
        type: 'about:blank',
        title: STATUS_CODES[err.status] ?? 'Error',
        status: err.status,
        code: err.code,
        detail: err.message,
        ...(err.fieldErrors ? { errors: err.fieldErrors } : {}),
        request_id: requestId,
      }),
    );
}
