/**
 * `GET /openapi.json` and `GET /docs`: Swagger UI served from the installed swagger-ui-dist
 * package, so the documentation renders with no network access.
 */
import { readdirSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, extname, join } from 'node:path';
import { type RequestHandler, Router } from 'express';
import { keepable, type PreparedBody, prepareBody, sendPrepared } from './prepared-body.ts';

const PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8" />
  <title>Shop API — REST reference</title>
  <link rel="icon" href="/favicon.ico" />
  <link rel="stylesheet" href="/docs/assets/swagger-ui.css" />
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="/docs/assets/swagger-ui-bundle.js"></script>
  <script src="/docs/init.js"></script>
</body>
</html>`;

// Served as a file, not inline, so a strict Content-Security-Policy can forbid inline scripts.
// `validatorUrl: null`: no badge fetched from validator.swagger.io (the page reaches only this origin).
const INIT = `window.ui = SwaggerUIBundle({ url: '/openapi.json', dom_id: '#swagger-ui', deepLinking: true, validatorUrl: null });`;

/** Swagger UI's files as served: the package's files of these types; any other name is a 404. */
const ASSET_TYPES: Record<string, string> = {
  '.js': 'application/javascript',
  '.css': 'text/css',
  '.png': 'image/png',
};
/** The assets change only with the swagger-ui-dist version; browsers revalidate daily (ETag → 304). */
const ASSET_CACHE = 'public, max-age=86400';

/** The document and its viewer; `pagePolicy` adds the HTML page's Content-Security-Policy. */
export function docsRoutes(openapi: object, pagePolicy: RequestHandler): Router {
  const router = Router();
  // Each made and compressed once, on first demand (the bundle is 1.4 MB: brotli per request was ~0.2 s of CPU).
  const json = keepable(prepareBody(JSON.stringify(openapi)));
  const page = keepable(prepareBody(PAGE));
  const init = keepable(prepareBody(INIT));
  router.get('/openapi.json', (req, res, next) => {
    res.type('application/json');
    sendPrepared(req, res, json, 'no-cache')?.catch(next);
  });
  router.get('/docs', pagePolicy, (req, res, next) => {
    res.type('html');
    sendPrepared(req, res, page, 'no-cache')?.catch(next);
  });
  router.get('/docs/init.js', (req, res, next) => {
    res.type('application/javascript');
    sendPrepared(req, res, init, 'no-cache')?.catch(next);
  });
  const swaggerDir = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
  const files = new Set(readdirSync(swaggerDir).filter((f) => ASSET_TYPES[extname(f)]));
  const assets = new Map<string, Promise<PreparedBody>>();
  router.get('/docs/assets/:file', (req, res, next) => {
    const { file } = req.params;
    const type = ASSET_TYPES[extname(file)];
    if (!type || !files.has(file)) return next();
    let asset = assets.get(file);
    if (!asset) {
      asset = readFile(join(swaggerDir, file)).then(prepareBody);
      assets.set(file, asset);
    }
    res.type(type);
    asset.then((a) => sendPrepared(req, res, a, ASSET_CACHE)).catch(next);
  });
  return router;
}
