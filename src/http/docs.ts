/**
 * `GET /openapi.json` and `GET /docs`: Swagger UI served from the installed swagger-ui-dist
 * package, so the documentation renders with no network access.
 */
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import express, { Router } from 'express';

const require = createRequire(import.meta.url);
const SWAGGER_DIR = dirname(require.resolve('swagger-ui-dist/package.json'));

const PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8" />
  <title>Shop API — REST reference</title>
  <link rel="stylesheet" href="/docs/assets/swagger-ui.css" />
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="/docs/assets/swagger-ui-bundle.js"></script>
  <script src="/docs/init.js"></script>
</body>
</html>`;

// Served as a file, not inline, so a strict Content-Security-Policy can forbid inline scripts.
const INIT = `window.ui = SwaggerUIBundle({ url: '/openapi.json', dom_id: '#swagger-ui', deepLinking: true });`;

export function docsRoutes(openapi: object): Router {
  const router = Router();
  const json = JSON.stringify(openapi);
  router.get('/openapi.json', (_req, res) => void res.type('application/json').send(json));
  router.get('/docs', (_req, res) => void res.type('html').send(PAGE));
  router.get('/docs/init.js', (_req, res) => void res.type('application/javascript').send(INIT));
  router.use('/docs/assets', express.static(SWAGGER_DIR, { index: false, maxAge: '1d' }));
  return router;
}
