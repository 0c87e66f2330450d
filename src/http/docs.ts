/**
 * `GET /openapi.json` and `GET /docs`: Swagger UI served from the installed swagger-ui-dist
 * package, so the documentation renders with no network access.
 */
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import express, { type RequestHandler, Router } from 'express';

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

/** The document and its viewer; `pagePolicy` adds the HTML page's Content-Security-Policy. */
export function docsRoutes(openapi: object, pagePolicy: RequestHandler): Router {
  const router = Router();
  const json = JSON.stringify(openapi);
  router.get('/openapi.json', (_req, res) => void res.type('application/json').send(json));
  router.get('/docs', pagePolicy, (_req, res) => void res.type('html').send(PAGE));
  router.get('/docs/init.js', (_req, res) => void res.type('application/javascript').send(INIT));
  const swaggerDir = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
  router.use('/docs/assets', express.static(swaggerDir, { index: false, maxAge: '1d' }));
  return router;
}
