/**
 * Browser access (contract §7.5): pages on the allowed origins (`CORS_ORIGINS`) may call the API;
 * others get no CORS headers, so their browsers refuse to show them the answer. Tokens travel in the
 * `Authorization` header, never in cookies, so credentials are never allowed.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import corsMiddleware, { type CorsOptions } from 'cors';
import type { Request, RequestHandler, Response } from 'express';
import vary from 'vary';

// If-Match: a browser's PATCH or DELETE of an item names the version it read (contract §12.2).
const ALLOWED_HEADERS = ['Authorization', 'Content-Type', 'Idempotency-Key', 'If-Match', 'X-Request-Id'];
const EXPOSED_HEADERS = ['X-Request-Id', 'Location', 'Retry-After', 'WWW-Authenticate', 'ETag'];
/** How long a browser may reuse a preflight answer, in seconds. */
const PREFLIGHT_MAX_AGE = 600;

export interface Cors {
  /**
   * Adds the CORS headers an allowed origin gets on an actual (not OPTIONS) request. Plain Node
   * request and response: Express's middleware and the front door (front-door.ts) both call it.
   */
  answer(req: IncomingMessage, res: ServerResponse): void;
  /**
   * Answers `OPTIONS` on a known path: 204 with `Allow`, and for an allowed origin's preflight the
   * `Access-Control-Allow-*` headers naming that path's methods.
   */
  options(methods: readonly string[]): RequestHandler;
}

export function createCors(origins: readonly string[]): Cors {
  const any = origins.includes('*');
  // The origin itself is echoed (with `Vary: Origin`) even for `*`, so caches keep answers apart.
  const origin: CorsOptions['origin'] = (requestOrigin, done) =>
    done(null, requestOrigin && (any || origins.includes(requestOrigin)) ? requestOrigin : false);
  const base: CorsOptions = {
    origin,
    credentials: false,
    allowedHeaders: ALLOWED_HEADERS,
    exposedHeaders: EXPOSED_HEADERS,
    maxAge: PREFLIGHT_MAX_AGE,
    optionsSuccessStatus: 204,
  };
  const actual = corsMiddleware(base);
  // Answers differ by Origin whenever CORS is on — also for a request with no Origin or another one
  // (the cors package says `Vary: Origin` only when it allows): else a shared cache could hand the
  // storefront a copy without CORS headers that it kept for another caller.
  const varies = origins.length > 0;
  return {
    answer(req, res) {
      if (varies) vary(res, 'Origin');
      // No Origin, no CORS headers (the origin callback refuses it): the package's option merging skipped.
      if (req.headers.origin === undefined) return;
      // Synchronous for an actual request: the origin callback answers at once.
      actual(req as Request, res as Response, () => {});
    },
    options(methods) {
      const preflight = corsMiddleware({ ...base, methods: [...methods] });
      const allow = methods.join(', ');
      return (req: Request, res: Response) => {
        // As for `answer`: a refused preflight (no CORS headers) varies on Origin as much as an allowed one.
        if (varies) vary(res, 'Origin');
        res.set('Allow', allow);
        // An allowed origin gets the preflight headers (harmless on a plain OPTIONS); others just `Allow`.
        preflight(req, res, () => void res.status(204).set('Content-Length', '0').end());
      };
    },
  };
}
