/**
 * The body of a file route (an import, contract §13.2): one of the route's media types (else 415),
 * not content-encoded (else 415), and — when its length is declared — at most the configured size
 * (else 413 at once, before a byte is read). The body is left unread on the request: the operation
 * reads it as a stream (and counts it against the same size as it arrives).
 */
import type { NextFunction, Request, Response } from 'express';
import { AppError, importFileTooLarge } from '../errors/app-error.ts';
import type { UploadedFile } from '../transfer/uploaded-file.ts';

export function fileBody(types: readonly string[], maxBytes: number) {
  return (req: Request, _res: Response, next: NextFunction) => {
    const type = req.is([...types]);
    if (!type) {
      return next(new AppError('UNSUPPORTED_MEDIA_TYPE', `Send the file as ${types.join(' or ')}.`));
    }
    const encoding = req.get('content-encoding');
    if (encoding && encoding.toLowerCase() !== 'identity') {
      return next(new AppError('UNSUPPORTED_MEDIA_TYPE', 'Send the file without Content-Encoding.'));
    }
    const length = Number(req.get('content-length') ?? 0);
    if (length > maxBytes) {
      return next(importFileTooLarge(maxBytes));
    }
    const file: UploadedFile = { type: req.get('content-type'), stream: () => req };
    req.body = file;
    next();
  };
}
