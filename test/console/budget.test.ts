/**
 * The console's size budget (contract §15, console.md §3): the JavaScript and CSS the sign-in page
 * loads ≤ 200 KiB gzipped; each further screen ≤ 80 KiB gzipped more. Read from the build in
 * dist/console (Vite's manifest): the page's entry and everything it imports, the sign-in route's
 * chunk and the larger language catalogue; then, per screen, what the signed-in frame and the screen
 * load beyond that. The figures are printed (docs/console.md keeps them).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/service-process.ts';

const DIST = join(ROOT, 'dist', 'console');
const MANIFEST = join(DIST, '.vite', 'manifest.json');
const KiB = 1024;
const SIGN_IN_BUDGET = 200 * KiB;
const SCREEN_BUDGET = 80 * KiB;

interface Chunk {
  file: string;
  src?: string;
  isEntry?: boolean;
  imports?: string[];
  dynamicImports?: string[];
  css?: string[];
}
type Manifest = Record<string, Chunk>;

/** The files a chunk loads before it runs: itself, its CSS, its static imports, recursively. */
function closure(manifest: Manifest, keys: string[], into = new Set<string>()): Set<string> {
  for (const key of keys) {
    const chunk = manifest[key];
    if (!chunk) throw new Error(`${key} is not in the manifest`);
    if (into.has(chunk.file)) continue;
    into.add(chunk.file);
    for (const css of chunk.css ?? []) into.add(css);
    closure(manifest, chunk.imports ?? [], into);
  }
  return into;
}

const gzipped = (files: Iterable<string>) =>
  [...files].reduce((sum, file) => sum + gzipSync(readFileSync(join(DIST, file)), { level: 9 }).length, 0);

/** A route's lazily loaded component chunk (TanStack Router's autoCodeSplitting). */
const routeChunk = (manifest: Manifest, route: string) => {
  const key = Object.keys(manifest).find((k) => k.startsWith(`src/routes/${route}?tsr-split`));
  if (!key) throw new Error(`no split chunk for ${route}`);
  return key;
};

describe.skipIf(!existsSync(MANIFEST) && process.env.CI !== 'true')('the console’s size budget', () => {
  it('when the build is measured, then the sign-in page is ≤ 200 KiB gzipped and each screen ≤ 80 KiB more', () => {
    const manifest = JSON.parse(readFileSync(MANIFEST, 'utf8')) as Manifest;
    const entry = Object.keys(manifest).find((k) => manifest[k]!.isEntry)!;
    const catalogues = Object.keys(manifest).filter((k) => k.endsWith('.po'));
    expect(catalogues.sort()).toEqual(['src/i18n/en.po', 'src/i18n/zh-CN.po']);
    const largestCatalogue = catalogues.map((k) => manifest[k]!.file).sort((a, b) => gzipped([b]) - gzipped([a]))[0]!;
    const signIn = closure(manifest, [entry, routeChunk(manifest, 'login.tsx')]);
    signIn.add(largestCatalogue);
    const signInBytes = gzipped(signIn);

    const layout = routeChunk(manifest, '_signed-in.tsx');
    const screens = Object.keys(manifest)
      .filter((k) => k.startsWith('src/routes/_signed-in/') && k.includes('?tsr-split'))
      .map((k) => k.replace(/^src\/routes\/_signed-in\//, '').replace(/\?.*$/, ''));
    expect(screens).toContain('items/index.tsx');
    const rows = screens.map((screen) => {
      const files = closure(manifest, [layout, routeChunk(manifest, `_signed-in/${screen}`)]);
      const more = [...files].filter((f) => !signIn.has(f));
      return { screen, bytes: gzipped(more) };
    });

    const kib = (n: number) => `${(n / KiB).toFixed(1)} KiB`;
    console.log(
      `console budget (gzipped): sign-in page ${kib(signInBytes)} of ${kib(SIGN_IN_BUDGET)}; ` +
        rows.map((r) => `${r.screen} +${kib(r.bytes)}`).join(', '),
    );
    expect(signInBytes, 'the sign-in page').toBeLessThanOrEqual(SIGN_IN_BUDGET);
    for (const row of rows) expect(row.bytes, row.screen).toBeLessThanOrEqual(SCREEN_BUDGET);
  });
});
