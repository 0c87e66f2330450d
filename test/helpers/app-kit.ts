/**
 * Where a test app's service comes from: the source (default), or — `TEST_APP=dist`, the `bundle`
 * project of vitest.config.ts — the bundle that `npm start` runs (dist/app-kit.js, src/app-kit.ts),
 * built once per run by global-setup.ts. Read at every start, not at import: with `isolate: false` a
 * worker's modules outlive the file (and the project) they were imported for.
 */
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT } from './service-process.ts';

export type AppKit = typeof import('../../src/app-kit.ts');

const kits = new Map<string, Promise<AppKit>>();

/** The service's pieces from where this test file's project says. */
export function appKit(): Promise<AppKit> {
  const from = process.env.TEST_APP === 'dist' ? 'dist' : 'src';
  let kit = kits.get(from);
  if (!kit) {
    kit =
      from === 'dist'
        ? (import(/* @vite-ignore */ pathToFileURL(join(ROOT, 'dist/app-kit.js')).href) as Promise<AppKit>)
        : import('../../src/app-kit.ts');
    kits.set(from, kit);
  }
  return kit;
}
