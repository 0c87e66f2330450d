#!/usr/bin/env node
// Bundles the service's TypeScript into dist/ (one ESM file per entry point) with its pure-JavaScript
// dependencies. `npm start` runs the bundle with plain Node: no TypeScript loader thread at run time,
// which measured ~2 s less start-up and ~50 MB less memory than `node --import tsx`; and Node's module
// loader resolves, reads and compiles a few files instead of ~700 (importing the app: 1.1 s → 0.66 s).
// Runs after install and before every `npm start` and `npm run cli` (about half a second), so dist/
// never goes stale. The admin console (dist/console) is built after it, when its inputs changed
// (scripts/build-console.mjs).
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { build } from 'esbuild';
import { buildConsole } from './build-console.mjs';

const outdir = new URL('../dist/', import.meta.url).pathname;
const result = await build({
  // app-kit: the same service for the tests that drive the bundle (src/app-kit.ts); npm start never loads it.
  entryPoints: { server: 'src/server.ts', cli: 'src/cli.ts', 'app-kit': 'src/app-kit.ts' },
  outdir,
  absWorkingDir: new URL('..', import.meta.url).pathname,
  bundle: true,
  platform: 'node',
  format: 'esm',
  // Code behind a dynamic import() goes into its own chunk, loaded only where it runs: the cluster
  // primary (src/process/supervise.ts) never loads the app.
  splitting: true,
  target: 'node20',
  // Left in node_modules: what loads files of its own at run time (native addons, WebAssembly,
  // pino's transport threads), and pg, which @prisma/adapter-pg (external) shares with us.
  external: [
    '@node-rs/*',
    '@electric-sql/pglite',
    '@electric-sql/pglite/*',
    'pglite-prisma-adapter',
    '@prisma/*',
    'pg',
    'pino',
    'pino-pretty',
  ],
  // A package's ES module build where it has one: what the bundle imports then binds directly, where a
  // CommonJS build's exports would be read through a getter at every use (graphql's, thousands per request).
  mainFields: ['module', 'main'],
  plugins: [oneGraphql()],
  // Bundled CommonJS packages require Node's built-ins; an ES module has no `require` of its own.
  banner: {
    js: "import { createRequire as __bundleRequire } from 'node:module'; const require = __bundleRequire(import.meta.url);",
  },
  sourcemap: 'linked',
  // Whitespace and comments out (names kept, so stack traces still name every function; the linked
  // source map gives file and line): every serving process keeps the source text of its modules in
  // its heap, and a chunk holding any non-ASCII character (an em dash, a § in a comment) is kept at
  // two bytes a character. Measured in a worker's heap snapshot: 12.5 MB of source text before, ~6 MB after.
  minifyWhitespace: true,
  logLevel: 'warning',
  metafile: true,
  // Written below, file by file (writeOutputs): a build never truncates a file another process is loading.
  write: false,
});

/**
 * graphql ships every module twice, as ES module (`.mjs`, what `import 'graphql'` takes here) and as
 * CommonJS (`.js`); a package importing a deep path, with `.js` (`graphql/execution/execute.js`:
 * graphql-jit) or without (`graphql/language/parser`: graphql-armor's token limit), would bundle a
 * second graphql, whose `instanceof` checks fail on the first one's objects (a syntax error thrown by
 * the second parser was answered as INTERNAL). Every deep path takes the ES module; the build stops
 * if a second copy gets in all the same (assertOneGraphql).
 */
function oneGraphql() {
  return {
    name: 'one-graphql',
    setup(b) {
      // (Go's regular expressions have no look-behind: an `.mjs` path, this hook's own, passes through.)
      b.onResolve({ filter: /^graphql\/.+/ }, (args) =>
        args.path.endsWith('.mjs')
          ? undefined
          : b.resolve(`${args.path.replace(/\.js$/, '')}.mjs`, { kind: args.kind, resolveDir: args.resolveDir }),
      );
    },
  };
}

/** Stops the build when graphql's CommonJS modules were bundled beside its ES modules (see oneGraphql). */
function assertOneGraphql(inputs) {
  const commonJs = inputs.filter((path) => /node_modules\/graphql\/.+\.js$/.test(path));
  if (commonJs.length) {
    console.error(`build: a second copy of graphql was bundled (${commonJs.slice(0, 3).join(', ')} …)`);
    process.exit(1);
  }
}
assertOneGraphql(Object.keys(result.metafile.inputs));

/**
 * Every test file builds before it starts a service, several at once, while other files' services load
 * dist/: esbuild's own write truncates a file and fills it, and a process loading it in between reads
 * half a module ("SyntaxError: Unexpected end of input", seen once in CI). A file whose bytes are
 * already there is left alone (the usual case: the source did not change); a changed one is written
 * beside it and renamed over it, which readers see as one step.
 */
function writeOutputs(files) {
  mkdirSync(outdir, { recursive: true });
  for (const { path, contents } of files) {
    if (existsSync(path) && Buffer.compare(readFileSync(path), contents) === 0) continue;
    const temporary = `${path}.${process.pid}.tmp`;
    writeFileSync(temporary, contents);
    renameSync(temporary, path);
  }
}
writeOutputs(result.outputFiles);

// Chunk names carry a content hash, so each build adds files; what this build did not write is stale
// (the console's folder is its own build's).
const written = new Set(Object.keys(result.metafile.outputs).map((path) => path.split('/').pop()));
// (Another build's temporary file is its own to rename.)
for (const file of readdirSync(outdir)) {
  if (!written.has(file) && file !== 'console' && !file.endsWith('.tmp')) rmSync(outdir + file);
}

await buildConsole();
