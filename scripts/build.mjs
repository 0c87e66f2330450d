#!/usr/bin/env node
// Bundles the service's TypeScript into dist/ (one ESM file per entry point, dependencies left in
// node_modules). `npm start` runs the bundle with plain Node: no TypeScript loader thread at run
// time, which measured ~2 s less start-up and ~50 MB less memory than `node --import tsx`.
// Runs after install and before every `npm start` (about half a second), so dist/ never goes stale.
import { build } from 'esbuild';

await build({
  entryPoints: { server: 'src/server.ts' },
  outdir: new URL('../dist/', import.meta.url).pathname,
  absWorkingDir: new URL('..', import.meta.url).pathname,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  packages: 'external',
  sourcemap: 'linked',
  logLevel: 'warning',
});
