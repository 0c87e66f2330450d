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
