/**
 * Builds the admin console (console/, contract §15) into dist/console with Vite, when its inputs
 * changed since the last build: its sources, the GraphQL schema it is typed against and the lockfile.
 * The stamp of the inputs is kept beside the build, so `npm start` (which runs scripts/build.mjs
 * first) costs a hash of a few dozen files, not a build. Vite and the console's libraries are
 * devDependencies: installed without them, the build is skipped and the service says so at /admin.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';

const ROOT = new URL('..', import.meta.url).pathname;
const OUT = join(ROOT, 'dist', 'console');
const STAMP = join(OUT, '.inputs');
// Generated files (the route tree is rewritten by the build itself; graphql-env.d.ts by the typecheck).
const SKIP = new Set(['node_modules', 'routeTree.gen.ts', 'graphql-env.d.ts']);

function files(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (SKIP.has(entry.name)) return [];
    const path = join(dir, entry.name);
    return entry.isDirectory() ? files(path) : [path];
  });
}

function inputsHash() {
  const hash = createHash('sha256');
  const inputs = [...files(join(ROOT, 'console')), join(ROOT, 'schema.graphql'), join(ROOT, 'package-lock.json')];
  for (const file of inputs.sort()) {
    hash.update(relative(ROOT, file)).update('\0').update(readFileSync(file)).update('\0');
  }
  return hash.digest('hex');
}

export async function buildConsole({ force = false } = {}) {
  const stamp = inputsHash();
  if (!force && existsSync(join(OUT, 'index.html')) && existsSync(STAMP) && readFileSync(STAMP, 'utf8') === stamp) {
    return;
  }
  let vite;
  try {
    vite = await import('vite');
  } catch {
    console.warn(
      'build: the admin console was not built (Vite is a devDependency: `npm install` with dev dependencies)',
    );
    return;
  }
  const started = performance.now();
  // A production build whatever NODE_ENV the caller runs under (the tests' `test`): React's production
  // build and Lingui's catalogues without source messages.
  const nodeEnv = process.env.NODE_ENV;
  process.env.NODE_ENV = 'production';
  try {
    await vite.build({ configFile: join(ROOT, 'console', 'vite.config.ts'), logLevel: 'warn', mode: 'production' });
  } finally {
    if (nodeEnv === undefined) delete process.env.NODE_ENV;
    else process.env.NODE_ENV = nodeEnv;
  }
  writeFileSync(STAMP, stamp);
  console.log(`build: admin console built into dist/console in ${((performance.now() - started) / 1000).toFixed(1)} s`);
}

if (import.meta.url === `file://${process.argv[1]}`) await buildConsole({ force: process.argv.includes('--force') });
