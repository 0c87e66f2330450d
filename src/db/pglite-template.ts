/**
 * A new embedded database starts from a copy of PGlite's freshly initialised cluster instead of
 * running initdb again: initdb is 4–5 s of WebAssembly on a 2-core machine, loading its archive ~1 s.
 *
 * The first initdb of a PGlite version is archived — before anything is written into the cluster —
 * beside that PGlite installation (`node_modules/.cache/shop-service/`), and every later new DATA_DIR
 * of that installation loads it: a demo shop reset with a new DATA_DIR, each test that starts the
 * service on a directory of its own. The archive holds nothing of ours: migrations, the bootstrap
 * admin and the demo seed run as on any first start. Where the cache cannot be written or read (a
 * read-only install), initdb runs as before; the archive is keyed by PGlite's version, so an upgrade
 * never loads a cluster another version made.
 */
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const PACKAGE_DIR = /^(.*[\\/]node_modules[\\/]@electric-sql[\\/]pglite)[\\/]/;

/** Where the archive of this PGlite installation's initdb lives; undefined when that cannot be told. */
export async function initdbTemplateFile(): Promise<string | undefined> {
  try {
    const entry = createRequire(import.meta.url).resolve('@electric-sql/pglite');
    const packageDir = PACKAGE_DIR.exec(entry)?.[1];
    if (!packageDir) return undefined;
    const { version } = JSON.parse(await readFile(join(packageDir, 'package.json'), 'utf8')) as { version: string };
    return join(packageDir, '..', '..', '.cache', 'shop-service', `pglite-${version}-initdb.tar`);
  } catch {
    return undefined;
  }
}

/** The archived initdb of this PGlite installation, if one was kept. */
export async function readInitdbTemplate(): Promise<Blob | undefined> {
  const file = await initdbTemplateFile();
  if (!file) return undefined;
  try {
    return new Blob([await readFile(file)]);
  } catch {
    return undefined;
  }
}

/**
 * Keeps `archive` (a cluster initdb has just made, nothing written into it yet) for the next new
 * DATA_DIR. Written under a name of its own and renamed, so a reader never sees half an archive.
 */
export async function keepInitdbTemplate(archive: () => Promise<Blob>): Promise<void> {
  const file = await initdbTemplateFile();
  if (!file) return;
  try {
    await mkdir(dirname(file), { recursive: true });
    const partial = `${file}.${process.pid}.partial`;
    await writeFile(partial, new Uint8Array(await (await archive()).arrayBuffer()));
    await rename(partial, file);
  } catch {
    // A read-only install: the next new DATA_DIR runs initdb again.
  }
}
