/**
 * A path segment whose percent-escapes do not decode (`%zz`, `%FF`: not UTF-8) makes Express' router
 * throw while it matches routes — a 500 before any route could answer 404 or 405. Such a segment is
 * taken literally instead (its `%` escaped as `%25`), so `/api/v1/items/%FF` is simply an id that is
 * not a number: 404 for GET, 405 for another method, like any other malformed id (contract §4.2).
 */
import type { NextFunction, Request, Response } from 'express';

function literalSegment(segment: string): string {
  try {
    decodeURIComponent(segment);
    return segment;
  } catch {
    return segment.replaceAll('%', '%25');
  }
}

export function undecodablePathAsLiteral(req: Request, _res: Response, next: NextFunction): void {
  const query = req.url.indexOf('?');
  const path = query === -1 ? req.url : req.url.slice(0, query);
  if (path.includes('%')) {
    const fixed = path.split('/').map(literalSegment).join('/');
    if (fixed !== path) req.url = fixed + (query === -1 ? '' : req.url.slice(query));
  }
  next();
}
