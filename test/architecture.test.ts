/**
 * The rooms of src/ and the directions their imports may take (docs/architecture.md), checked on the
 * source itself, so a new file cannot quietly turn a dependency back up a layer.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from './helpers/service-process.ts';

const SRC = join(ROOT, 'src');

/** Every TypeScript file of src/ (generated code aside), relative to src/. */
function sourceFiles(dir = SRC): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return e.name === 'generated' ? [] : sourceFiles(path);
    return e.name.endsWith('.ts') ? [relative(SRC, path)] : [];
  });
}

/** The src/ files a file imports (relative specifiers only), relative to src/. */
function importsOf(file: string): string[] {
  const text = readFileSync(join(SRC, file), 'utf8');
  const specs = [
    ...text.matchAll(/(?:^|\n)\s*(?:import|export)[^'"]*?from\s*'(\.[^']+)'/g),
    ...text.matchAll(/import\(\s*'(\.[^']+)'\s*\)/g),
  ];
  return specs.map((m) => normalize(join(dirname(file), m[1]!)));
}

const files = sourceFiles();
const graph = new Map(files.map((f) => [f, importsOf(f)]));
const room = (file: string) => (file.includes('/') ? file.split('/')[0]! : '(root)');
/** Folders that hold a domain's rules: what the adapters must not know. */
const DOMAINS = ['catalog', 'accounts', 'auth', 'search', 'audit'];

/** `from → to` for every import of a file in `rooms` that lands in one of `forbidden`. */
function crossings(rooms: string[], forbidden: (target: string) => boolean, allowed: string[] = []): string[] {
  return [...graph]
    .filter(([file]) => rooms.includes(room(file)) && !allowed.includes(file))
    .flatMap(([file, targets]) => targets.filter(forbidden).map((t) => `${file} → ${t}`));
}

describe('the rooms of src/', () => {
  it('when the source is read, then it has the rooms docs/architecture.md names', () => {
    for (const r of ['http', 'rest', 'openapi', 'graphql', 'auth', 'accounts', 'catalog', 'db', 'setup', 'process']) {
      expect(
        files.some((f) => room(f) === r),
        r,
      ).toBe(true);
    }
    expect(graph.size).toBeGreaterThan(80);
  });

  it('when the HTTP middleware, the REST adapter and the OpenAPI document import, then no domain folder is among them — but the route registry', () => {
    expect(crossings(['http', 'rest', 'openapi'], (t) => DOMAINS.includes(room(t)), ['rest/routes.ts'])).toEqual([]);
  });

  it('when search/ imports, then nothing comes from catalog/ (the catalogue uses search, not the other way)', () => {
    expect(crossings(['search'], (t) => room(t) === 'catalog')).toEqual([]);
  });

  it('when auth/ imports, then nothing comes from accounts/ (identity below the account flows)', () => {
    expect(crossings(['auth'], (t) => room(t) === 'accounts')).toEqual([]);
  });

  it('when graphql/ imports, then nothing comes from http/, rest/ or openapi/ (GraphQL below HTTP)', () => {
    expect(crossings(['graphql'], (t) => ['http', 'rest', 'openapi'].includes(room(t)))).toEqual([]);
  });

  it('when infrastructure imports, then it knows no domain and no process wiring', () => {
    const above = [
      'catalog',
      'accounts',
      'auth',
      'search',
      'audit',
      'cli',
      'process',
      'setup',
      'http',
      'rest',
      'openapi',
      'graphql',
    ];
    expect(
      crossings(['db', 'observability', 'config', 'errors', 'validation'], (t) => above.includes(room(t))),
    ).toEqual([]);
  });

  it("when Pothos' private data is read, then only graphql/field-guards.ts reads it", () => {
    const readers = files.filter((f) =>
      /pothosOptions|pothosArgMappers|'@pothos\/plugin-validation'\s*\]|'@pothos\/plugin-validation'\?:/.test(
        readFileSync(join(SRC, f), 'utf8'),
      ),
    );
    expect(readers).toEqual(['graphql/field-guards.ts']);
  });
});
