/**
 * The admin console (contract §15), served from the files its build left in dist/console
 * (scripts/build-console.mjs): `GET /admin` and every path under it but `/admin/api/*` answer the
 * console's page, whose router shows the screen the path names; `/admin/assets/*` are the build's
 * hashed files, cached for a year and never revalidated. Each file is read, compressed and kept on
 * first demand (http/prepared-body.ts) — and, a moment after start, the page and its scripts and
 * styles are read and compressed ahead of it, so the first visit after a deploy does not wait for
 * that (measured: the first load of the items screen on 100,000 items, docs/console.md).
 */
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { dirname, extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Request, type RequestHandler, type Response, Router } from 'express';
import { AppError } from '../errors/app-error.ts';
import { keepable, type PreparedBody, precompress, prepareBody, sendPrepared } from './prepared-body.ts';

/** Where the console is served; `/admin/api/*` stays the REST API's. */
export const CONSOLE_PATHS = ['/admin', '/admin/*path'];
const API_PREFIX = '/admin/api';
const ASSETS_PREFIX = '/admin/assets/';

/** The page may change with every deploy: never kept by a cache, so a new build is seen at once. */
const PAGE_CACHE = 'no-store';
/** A hashed file never changes under its name. */
const ASSET_CACHE = 'public, max-age=31536000, immutable';

const ASSET_TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
};
/** After start, when the console's files are prepared ahead of their first request (off the start's path). */
const WARM_AFTER_MS = 500;

/** A name the build writes (`index-Dgog7A1B.js`): no separators, no leading dot. */
const ASSET_NAME = /^[A-Za-z0-9_-][A-Za-z0-9_.-]*$/;

export interface ConsoleRoutesOptions {
  /** The page's headers with its Content-Security-Policy (security-headers.ts `consolePagePolicy`). */
  pagePolicy: RequestHandler;
  /** Answers OPTIONS (CORS preflight, `Allow`) on a console path. */
  options: RequestHandler;
  /** Answers any other method on a console path (405 with `Allow`). */
  otherMethod: RequestHandler;
  /** The build's folder; default dist/console of the project this module runs from. */
  dir?: string;
  /** Prepare the files ahead of their first request (a serving process; not the tests' many apps). */
  warm?: boolean;
}

/** dist/console above this module (src/http/ from the source, dist/ from the bundle). */
export function consoleDir(): string | undefined {
  for (let dir = dirname(fileURLToPath(import.meta.url)); ; dir = dirname(dir)) {
    const candidate = join(dir, 'dist', 'console');
    if (existsSync(join(candidate, 'index.html'))) return candidate;
    if (dirname(dir) === dir) return undefined;
  }
}

const isApi = (path: string) => path === API_PREFIX || path.startsWith(`${API_PREFIX}/`);

export function consoleRoutes(opts: ConsoleRoutesOptions): Router {
  const router = Router();
  const dir = opts.dir ?? consoleDir();
  const files = new Map<string, Promise<PreparedBody>>();
  /** A file of the build, read once; a file that is not there is not remembered (a build may add it). */
  const load = (relative: string): Promise<PreparedBody> | undefined => {
    const known = files.get(relative);
    if (known) return known;
    if (!dir || !existsSync(join(dir, relative))) return undefined;
    const file = readFile(join(dir, relative)).then((bytes) => keepable(prepareBody(bytes)));
    files.set(relative, file);
    file.catch(() => files.delete(relative));
    return file;
  };
  // Ahead of the first visit: the page and every script and style, compressed one after another (a
  // background chore: a failure only means the first request does the work, as it would have).
  if (dir && opts.warm) {
    const warm = async () => {
      const assets = (await readdir(join(dir, 'assets'))).filter((f) => /\.(js|css)$/.test(f));
      for (const relative of ['index.html', ...assets.map((f) => join('assets', f))]) {
        const file = load(relative);
        if (file) await precompress(await file);
      }
    };
    setTimeout(() => void warm().catch(() => {}), WARM_AFTER_MS).unref();
  }
  const notBuilt = () =>
    new AppError(
      'NOT_FOUND',
      'The admin console is not built here: run `npm run build` (it needs the dev dependencies).',
    );

  router.get(`${ASSETS_PREFIX}:file`, (req, res, next) => {
    const { file } = req.params;
    const type = ASSET_TYPES[extname(file)];
    const asset = type && ASSET_NAME.test(file) ? load(join('assets', file)) : undefined;
    if (!type || !asset) return next(new AppError('NOT_FOUND', `No console file ${req.path}.`));
    res.type(type);
    asset.then((a) => sendPrepared(req, res, a, ASSET_CACHE)).catch(next);
  });

  const page = (req: Request, res: Response, next: (err?: unknown) => void) => {
    const body = load('index.html');
    if (!body) return next(notBuilt());
    opts.pagePolicy(req, res, () => {
      res.type('html');
      body.then((b) => sendPrepared(req, res, b, PAGE_CACHE)).catch(next);
    });
  };

  router.all(CONSOLE_PATHS, (req, res, next) => {
    if (isApi(req.path)) return next();
    if (req.method === 'OPTIONS') return opts.options(req, res, next);
    if (req.method !== 'GET' && req.method !== 'HEAD') return opts.otherMethod(req, res, next);
    // A file under assets/ that the route above did not serve is missing, not a screen.
    if (req.path.startsWith(ASSETS_PREFIX)) return next(new AppError('NOT_FOUND', `No console file ${req.path}.`));
    page(req, res, next);
  });
  return router;
}
