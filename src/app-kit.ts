/**
 * The pieces that make one serving process's HTTP service — what src/process/serve.ts assembles —
 * gathered in one module so the test harness (test/helpers/test-app.ts) can take them either from
 * the source or from the bundle that `npm start` runs (dist/app-kit.js, built with server.js in one
 * esbuild run, so it shares the server's chunks). A build-only difference (two copies of graphql once
 * turned every syntax error into INTERNAL) then fails a test instead of hiding behind the source.
 */
export { buildApp } from './app.ts';
export { CATALOG_CHANNEL } from './catalog/catalog-cache.ts';
export { loadConfig } from './config/config.ts';
export { openDatabase } from './db/database.ts';
export { schema } from './graphql/schema.ts';
export { createHttpServer } from './http/http-server.ts';
export { restRoutes } from './rest/routes.ts';
export { openRuntime } from './runtime.ts';
