/**
 * The floor: the public read routes (the list with every filter and order) answered by bare node:http + pg with one hand-written SQL
 * statement each, returning the same JSON bodies as the service. It marks what Node and PostgreSQL
 * can do on this machine; the benchmark reports the service as a fraction of it.
 *
 * Run: BENCH_DATABASE_URL=postgresql://… PORT=3901 node --import tsx bench/floor.ts
 */
import { createServer, type ServerResponse } from 'node:http';
import pg from 'pg';
import { pageSql } from '../src/catalog/item.repository.ts';
import { ITEM_SORTS, type ItemSort } from '../src/catalog/item.schema.ts';
import type { SqlReader } from '../src/db/database.ts';
import { containsPattern } from '../src/db/like.ts';
import { queryRows } from '../src/db/prepared.ts';
import { type Facets, findFacets } from '../src/search/facets.ts';
import { ForgivingCache } from '../src/search/forgiving.ts';
import type { ItemFilter } from '../src/search/item-query.ts';
import { compiledKeyword, type KeywordSearch } from '../src/search/keyword.ts';
import { findSuggestions } from '../src/search/suggestions.ts';

const ISO = `'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'`;
const ITEM_JSON = (i: string) => `json_build_object(
  'id', ${i}.id, 'name', ${i}.name, 'description', ${i}.description, 'category_id', ${i}.category_id,
  'category', json_build_object('id', c.id, 'name', c.name),
  'price', ${i}.price::float8, 'stock', ${i}.stock,
  'skus', COALESCE((SELECT json_agg(json_build_object('id', s.id, 'sku_code', s.sku_code, 'specs', s.specs,
                     'price', s.price::float8, 'stock', s.stock) ORDER BY s.id) FROM skus s WHERE s.item_id = ${i}.id), '[]'),
  'images', COALESCE((SELECT json_agg(json_build_object('id', m.id, 'url', m.url, 'sort_order', m.sort_order)
                     ORDER BY m.sort_order, m.id) FROM item_images m WHERE m.item_id = ${i}.id), '[]'),
  'status', ${i}.status, 'publish_at', to_char(${i}.publish_at AT TIME ZONE 'UTC', ${ISO}),
  'unpublish_at', to_char(${i}.unpublish_at AT TIME ZONE 'UTC', ${ISO}), 'handle', ${i}.handle, 'version', ${i}.version,
  'created_at', to_char(${i}.created_at AT TIME ZONE 'UTC', ${ISO}),
  'updated_at', to_char(${i}.updated_at AT TIME ZONE 'UTC', ${ISO}))`;

// One statement per page, the service's own (src/catalog/item.repository.ts pageSql): the filters
// present are spliced in, so each combination is planned for its own index, and a keyword is matched
// and ranked by the service's search SQL. The floor measures the framework around the same query,
// not a different query.

/**
 * The reference of issue 18: revision 2's keyword search — a case-insensitive substring of the name,
 * newest first, by a trigram index on the name (created by bench/data.ts) — at `/reference/items`.
 */
const REFERENCE_SEARCH = `
  SELECT (SELECT count(*)::int FROM items i WHERE i.name ILIKE $3) AS total,
         (SELECT COALESCE(json_agg(${ITEM_JSON('i')} ORDER BY p.created_at DESC, p.id DESC), '[]')::text
            FROM (SELECT i.id, i.created_at FROM items i WHERE i.name ILIKE $3 ORDER BY i.created_at DESC, i.id DESC
                   LIMIT $1 OFFSET $2) p
            JOIN items i ON i.id = p.id JOIN categories c ON c.id = i.category_id) AS items`;

/** Facets with the REST names and JSON numbers the service answers with (contract §9.2). */
const restFacets = (f: Facets) => ({
  categories: f.categories.map((c) => ({ id: c.id, name: c.name, parent_id: c.parentId, count: c.count })),
  price: f.price && {
    min: Number(f.price.min),
    max: Number(f.price.max),
    buckets: f.price.buckets.map((b) => ({ from: Number(b.from), to: Number(b.to), count: b.count })),
  },
  specs: f.specs,
  in_stock: f.inStock,
});

// The public's items only (contract §12.1: the flag the catalogue's writes keep, as the service reads it).
const DETAIL = `SELECT ${ITEM_JSON('i')}::text AS item FROM items i JOIN categories c ON c.id = i.category_id WHERE i.id = $1 AND i.visible`;

const CATEGORIES = `SELECT COALESCE(json_agg(json_build_object('id', id, 'name', name, 'parent_id', parent_id,
  'sort_order', sort_order) ORDER BY sort_order, id), '[]')::text AS categories FROM categories`;

function send(res: ServerResponse, status: number, body: string, type = 'application/json; charset=utf-8'): void {
  res.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

const problem = (status: number, code: string) =>
  JSON.stringify({ type: 'about:blank', title: code, status, code, detail: code });

/** A money parameter as canonical text (up to 8 + 2 digits), null when absent, undefined when invalid. */
function moneyParam(v: string | null): string | null | undefined {
  if (v === null) return null;
  const m = /^(\d{1,8})(?:\.(\d{1,2}))?$/.exec(v);
  return m ? `${Number(m[1])}.${(m[2] ?? '').padEnd(2, '0')}` : undefined;
}

function intParam(v: string | null, def: number, min: number, max: number): number | undefined {
  if (v === null) return def;
  if (!/^\d+$/.test(v)) return undefined;
  const n = Number(v);
  return n >= min && n <= max ? n : undefined;
}

export function startFloor(url: string, port: number, poolSize = 10) {
  // As the service's connections (src/db/pg-pool.ts): JIT off (compiling costs more than these
  // statements), a statement stops after 5 s, and a request that waited 5 s for a connection fails —
  // a request the load generator gave up on must not keep PostgreSQL busy into the next scenario
  // (the floor's queue of facets requests at 1,000,000 items kept it busy for over a minute).
  const pool = new pg.Pool({
    connectionString: url,
    max: poolSize,
    options: '-c jit=off',
    statement_timeout: 5000,
    connectionTimeoutMillis: 5000,
  });
  // The service's facet and suggestion statements, run over plain `pg` — prepared where the service's
  // are (src/db/prepared.ts), as a hand-written server would prepare its fixed statements.
  const reader: SqlReader = {
    kind: 'postgres',
    query: (text, params, options) => queryRows(pool, text, params, options),
  };
  // Forgiving search (contract §9.6) as the service runs it with its cache off: the vocabulary asked
  // at most once per keyword every 0.5 s (search/forgiving.ts).
  const forgiving = new ForgivingCache({ enabled: false, generation: 0 });
  const forgive = (search: KeywordSearch) => forgiving.forgive(reader, search);
  const server = createServer(async (req, res) => {
    try {
      const u = new URL(req.url ?? '/', 'http://floor');
      if (req.method !== 'GET') return send(res, 405, problem(405, 'METHOD_NOT_ALLOWED'));
      if (u.pathname === '/api/v1/items') {
        const q = u.searchParams;
        const page = intParam(q.get('page'), 1, 1, 2_147_483_647);
        const limit = intParam(q.get('limit'), 20, 1, 100);
        const category = q.has('category_id') ? intParam(q.get('category_id'), 0, 1, 2_147_483_647) : null;
        const keyword = (q.get('keyword') ?? '').trim();
        const sort = q.get('sort') ?? (keyword ? 'relevance' : 'newest');
        const minPrice = moneyParam(q.get('min_price'));
        const maxPrice = moneyParam(q.get('max_price'));
        const inStock = q.get('in_stock');
        const facets = q.get('facets');
        if (
          page === undefined ||
          limit === undefined ||
          category === undefined ||
          keyword.length > 100 ||
          !(ITEM_SORTS as readonly string[]).includes(sort) ||
          minPrice === undefined ||
          maxPrice === undefined ||
          (minPrice !== null && maxPrice !== null && Number(minPrice) > Number(maxPrice)) ||
          (inStock !== null && inStock !== 'true' && inStock !== 'false') ||
          (facets !== null && facets !== 'true' && facets !== 'false')
        ) {
          return send(res, 400, problem(400, 'VALIDATION_FAILED'));
        }
        const filter: ItemFilter = {
          categoryId: category ?? undefined,
          search: keyword ? await forgive(compiledKeyword(keyword)) : undefined,
          minPrice: minPrice ?? undefined,
          maxPrice: maxPrice ?? undefined,
          inStock: inStock === 'true' ? true : undefined,
        };
        const list = pageSql(filter, sort as ItemSort, limit, (page - 1) * limit, ITEM_JSON('i'));
        // Both settle before either's failure is answered: a rejection left unobserved would end the process.
        const [paged, faceted] = await Promise.allSettled([
          queryRows<{ total: number; items: string }>(pool, list.text, list.params, { prepare: list.prepare }),
          facets === 'true' ? findFacets(reader, filter) : undefined,
        ]);
        if (paged.status === 'rejected') throw paged.reason;
        if (faceted.status === 'rejected') throw faceted.reason;
        const rows = paged.value;
        const counts = faceted.value;
        const { total, items } = rows[0]!;
        const tail = counts ? `,"facets":${JSON.stringify(restFacets(counts))}` : '';
        return send(
          res,
          200,
          `{"items":${items},"page":${page},"limit":${limit},"total":${total},"total_pages":${Math.ceil(total / limit)}${tail}}`,
        );
      }
      if (u.pathname === '/reference/items') {
        const keyword = u.searchParams.get('keyword') ?? '';
        const { rows } = await pool.query(REFERENCE_SEARCH, [20, 0, containsPattern(keyword)]);
        const { total, items } = rows[0]!;
        return send(
          res,
          200,
          `{"items":${items},"page":1,"limit":20,"total":${total},"total_pages":${Math.ceil(total / 20)}}`,
        );
      }
      if (u.pathname === '/api/v1/search/suggestions') {
        const q = (u.searchParams.get('q') ?? '').trim();
        const limit = intParam(u.searchParams.get('limit'), 8, 1, 20);
        if (q.length < 1 || q.length > 100 || limit === undefined)
          return send(res, 400, problem(400, 'VALIDATION_FAILED'));
        return send(res, 200, JSON.stringify({ suggestions: await findSuggestions(reader, q, limit, { forgive }) }));
      }
      const m = u.pathname.match(/^\/api\/v1\/items\/(\d{1,9})$/);
      if (m) {
        const rows = await queryRows<{ item: string }>(pool, DETAIL, [Number(m[1])], { prepare: true });
        return rows.length ? send(res, 200, rows[0]!.item) : send(res, 404, problem(404, 'NOT_FOUND'));
      }
      if (u.pathname === '/api/v1/categories') {
        const rows = await queryRows<{ categories: string }>(pool, CATEGORIES, [], { prepare: true });
        return send(res, 200, `{"categories":${rows[0]!.categories}}`);
      }
      if (u.pathname === '/readyz') return send(res, 200, '{"status":"ready"}');
      send(res, 404, problem(404, 'NOT_FOUND'));
    } catch (err) {
      // A statement over its time, or no connection free in time, answers 503, as the service's does.
      const { code, message } = err as { code?: string; message?: string };
      if (code === '57014' || message === 'timeout exceeded when trying to connect')
        return send(res, 503, problem(503, 'SERVICE_UNAVAILABLE'));
      send(res, 500, problem(500, 'INTERNAL'));
      console.error(err);
    }
  });
  server.keepAliveTimeout = 65_000;
  server.listen(port, '127.0.0.1');
  return {
    server,
    close: async () => {
      await new Promise((r) => server.close(r));
      await pool.end();
    },
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const url = process.env.BENCH_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/shop_bench';
  const port = Number(process.env.PORT ?? 3901);
  const floor = startFloor(url, port);
  floor.server.on('listening', () => console.log(JSON.stringify({ msg: 'floor listening', port })));
  process.on('SIGTERM', () => void floor.close().then(() => process.exit(0)));
}
