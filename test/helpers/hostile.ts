/**
 * Plumbing for the generated hostile-input suites (test/hostile): a wire-level HTTP client that can
 * send what `fetch` cannot (duplicate headers, raw bytes, broken framing), a JSON writer for bodies
 * JavaScript objects cannot express (duplicate keys, `__proto__` as a key, number literals such as
 * `1e400`), the per-answer oracles of contract §1, §2 and §7.1, a database fingerprint for "a
 * rejected request changed nothing", a per-route tally against vacuous passes, and `fuzz`, which runs
 * a fast-check property with a fixed, overridable seed and says how to replay a failure.
 */
import { appendFileSync } from 'node:fs';
import http, { type IncomingHttpHeaders } from 'node:http';
import net from 'node:net';
import fc from 'fast-check';
import { expect } from 'vitest';
import type { TestApp } from './test-app.ts';
import { TEST_DB } from './test-database.ts';

// ---------------------------------------------------------------------------------------------
// Seeds and run sizes

/** The default seed: fixed, so every run of the suite sends the same requests. */
export const DEFAULT_FUZZ_SEED = 20261123;

/**
 * The second database's run (PostgreSQL) draws its own cases, a third as many: the HTTP and validation
 * layers it would exercise again are the same code, what differs is the database under the writes —
 * and two seeds send more distinct inputs than one seed twice.
 */
const SECOND_DATABASE = TEST_DB === 'postgres';

/** `FUZZ_SEED` overrides the seed (any 32-bit integer); `FUZZ_PATH` replays one counterexample. */
export const FUZZ_SEED = process.env.FUZZ_SEED
  ? Number(process.env.FUZZ_SEED)
  : DEFAULT_FUZZ_SEED + (SECOND_DATABASE ? 1 : 0);
const FUZZ_PATH = process.env.FUZZ_PATH || undefined;
/** `FUZZ_SCALE=3` triples every run count (longer soak); `0.2` for a quick smoke run. */
const FUZZ_SCALE = process.env.FUZZ_SCALE ? Number(process.env.FUZZ_SCALE) : 1;
/**
 * `FUZZ_COLLECT=/tmp/file.jsonl`: instead of stopping (and shrinking) at the first violation, record
 * every violation in that file and fail at the end — for surveying many root causes in one run.
 */
const FUZZ_COLLECT = process.env.FUZZ_COLLECT || undefined;

if (!Number.isInteger(FUZZ_SEED)) throw new Error(`FUZZ_SEED must be an integer, got ${process.env.FUZZ_SEED}`);

/** The running test's own name (for the replay command's `-t`). */
export const currentTestName = () => expect.getState().currentTestName!.split(' > ').pop()!;

/**
 * A run count scaled by FUZZ_SCALE (never below 1), a third of it on the second database unless
 * `everyDatabase` (a suite whose outcomes need the whole count, such as the login limits' 429s).
 */
export const runs = (n: number, { everyDatabase = false } = {}) =>
  Math.max(1, Math.round((n * FUZZ_SCALE) / (SECOND_DATABASE && !everyDatabase ? 3 : 1)));

/** The time a fuzz run of `numRuns` cases may take: 100 ms a case plus the shrinking budget. */
const fuzzBudgetMs = (numRuns: number, shrinkBudgetMs = 60_000) => numRuns * 100 + shrinkBudgetMs;

/** A vitest timeout for a test that runs `fuzz` over `numRuns` cases (its budget plus set-up slack). */
export const fuzzTimeout = (numRuns: number) => fuzzBudgetMs(numRuns) + 30_000;

/**
 * Runs `predicate` on `numRuns` generated cases (seeded), failing with the shrunk counterexample and
 * the command that replays it. `name` should be the vitest test name, for `-t`.
 */
export async function fuzz<T>(
  name: string,
  file: string,
  arb: fc.Arbitrary<T>,
  numRuns: number,
  predicate: (value: T) => Promise<void>,
  opts: { shrinkBudgetMs?: number } = {},
): Promise<void> {
  let collected = 0;
  const property = fc.asyncProperty(arb, async (value) => {
    if (!FUZZ_COLLECT) return predicate(value);
    try {
      await predicate(value);
    } catch (err) {
      collected++;
      appendFileSync(
        FUZZ_COLLECT,
        `${JSON.stringify({
          test: name,
          db: process.env.TEST_DB,
          case: fc.stringify(value),
          error: (err as Error).message,
        })}\n`,
      );
    }
  });
  const started = Date.now();
  try {
    await fc.assert(property, {
      seed: FUZZ_SEED,
      path: FUZZ_PATH,
      numRuns,
      // Shrinking replays requests against a server whose state (rate limits, rows) moves on; bound
      // it so a failure is reported in reasonable time with the smallest case found so far. A run cut
      // short before any failure fails too: fewer cases than promised is not a pass.
      plugins: [fc.interruptAfterTimeLimit(fuzzBudgetMs(numRuns, opts.shrinkBudgetMs), { failOnInterrupt: true })],
      includeErrorInReport: true,
    });
  } catch (err) {
    const message = (err as Error).message;
    const path = /path: "([^"]*)"/.exec(message)?.[1];
    const replay =
      `Replay: FUZZ_SEED=${FUZZ_SEED}${path ? ` FUZZ_PATH="${path}"` : ''} ` +
      `npx vitest run ${file} --project ${process.env.TEST_DB ?? 'pglite'} -t '${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}'\n` +
      '(the server keeps state between cases — rate limits, rows — so a replay of one path may ' +
      'behave differently; replaying the seed alone reruns the whole sequence)';
    (err as Error).message = `${message}\n\n${replay}`;
    throw err;
  }
  if (collected) throw new Error(`${collected} violations recorded in ${FUZZ_COLLECT} (${Date.now() - started} ms)`);
}

// ---------------------------------------------------------------------------------------------
// The contract's error codes (§2) with their statuses: what every problem and GraphQL error must carry

export const CONTRACT_STATUS: Readonly<Record<string, number>> = {
  MALFORMED_JSON: 400,
  VALIDATION_FAILED: 400,
  INVALID_CREDENTIALS: 401,
  UNAUTHENTICATED: 401,
  TOKEN_INVALID: 401,
  TOKEN_EXPIRED: 401,
  TOKEN_REVOKED: 401,
  WX_CODE_INVALID: 401,
  ACCOUNT_DISABLED: 403,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  IDEMPOTENCY_CONFLICT: 409,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  RATE_LIMITED: 429,
  INTERNAL: 500,
  WX_LOGIN_NOT_CONFIGURED: 503,
  UPSTREAM_UNAVAILABLE: 503,
  SERVICE_UNAVAILABLE: 503,
};

/** The REST outcome of a contract code, as the tally writes it: `401 TOKEN_INVALID`. */
export const problem = (code: string) => `${CONTRACT_STATUS[code]} ${code}`;

/** The only 5xx a healthy service may give (§3.2), and only on the WeChat login. */
export const WECHAT_503 = ['WX_LOGIN_NOT_CONFIGURED', 'UPSTREAM_UNAVAILABLE'];

// ---------------------------------------------------------------------------------------------
// JSON text for bodies a JavaScript object cannot express

/** A JSON fragment written verbatim: number literals such as `1e400` or `-0`, or deliberately broken text. */
export class RawJson {
  constructor(readonly text: string) {}
  [fc.toStringMethod]() {
    return `raw(${JSON.stringify(this.text)})`;
  }
}

/** An object as an ordered list of entries: keys may repeat, and `__proto__` is an ordinary key. */
export class Entries {
  constructor(readonly entries: ReadonlyArray<readonly [string, unknown]>) {}
  [fc.toStringMethod]() {
    return jsonText(this);
  }
}

/**
 * JSON text of `value`, understanding RawJson and Entries. Strings go through JSON.stringify, which
 * writes U+0000 as `\u0000` and lone surrogates as `\udXXX` escapes — both valid JSON that decode
 * back to the hostile string on the server.
 */
export function jsonText(value: unknown): string {
  if (value instanceof RawJson) return value.text;
  if (value instanceof Entries)
    return `{${value.entries.map(([k, v]) => `${JSON.stringify(k)}:${jsonText(v)}`).join(',')}}`;
  if (Array.isArray(value)) return `[${value.map((v) => (v === undefined ? 'null' : jsonText(v))).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    return `{${Object.entries(value)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => `${JSON.stringify(k)}:${jsonText(v)}`)
      .join(',')}}`;
  }
  if (typeof value === 'number' && !Number.isFinite(value)) return 'null';
  if (typeof value === 'number' && Object.is(value, -0)) return '-0';
  return JSON.stringify(value) ?? 'null';
}

// ---------------------------------------------------------------------------------------------
// A wire-level HTTP client

export interface WireRequest {
  method: string;
  /** Path and query exactly as sent (already percent-encoded where needed). */
  path: string;
  /** Header lines in order; a name may repeat (two `Authorization` lines). Values: latin-1 text. */
  headers?: ReadonlyArray<readonly [string, string]>;
  body?: Buffer | string;
  /** Send the body with `Transfer-Encoding: chunked` in pieces of this many bytes. */
  chunked?: number;
}

/** The size of a request's body in bytes. */
export const bodyBytes = (req: WireRequest) =>
  req.body === undefined ? 0 : Buffer.isBuffer(req.body) ? req.body.length : Buffer.byteLength(req.body);

/** The size of a request's head (request line and header lines), roughly as sent. */
export const headBytes = (req: WireRequest) =>
  req.method.length + req.path.length + 11 + (req.headers ?? []).reduce((n, [k, v]) => n + k.length + v.length + 4, 0);

export interface WireResponse {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  /** The body parsed as JSON, or undefined. */
  json: any;
}

// One keep-alive connection, like a client that reuses its socket between hostile requests.
const agent = new http.Agent({ keepAlive: true, maxSockets: 2 });

const parseJson = (text: string) => {
  try {
    return text ? JSON.parse(text) : undefined;
  } catch {
    return undefined;
  }
};

/**
 * Sends one request with node:http (headers as given, duplicates kept as separate lines) and reads
 * the whole answer. Rejects when the connection ends without an answer.
 */
export function send(baseUrl: string, req: WireRequest, timeoutMs = 15_000): Promise<WireResponse> {
  const url = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const byName = new Map<string, string[]>();
    for (const [name, value] of req.headers ?? []) byName.set(name, [...(byName.get(name) ?? []), value]);
    const headers: Record<string, string | string[]> = {};
    for (const [name, values] of byName) headers[name] = values.length === 1 ? values[0]! : values;
    if (req.chunked) headers['transfer-encoding'] = 'chunked';
    // node:http writes no Content-Length for a GET, HEAD or DELETE body (the server would then read
    // the body as the next request): always declare it.
    else if (req.body !== undefined && !byName.has('content-length'))
      headers['content-length'] = String(bodyBytes(req));
    const r = http.request(
      { host: url.hostname, port: url.port, method: req.method, path: req.path, headers, agent, timeout: timeoutMs },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json: parseJson(text) });
        });
        res.on('error', reject);
      },
    );
    r.on('timeout', () => r.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    r.on('error', reject);
    if (req.body === undefined) return void r.end();
    const body = Buffer.isBuffer(req.body) ? req.body : Buffer.from(req.body, 'utf8');
    if (!req.chunked) return void r.end(body);
    for (let i = 0; i < body.length; i += req.chunked) r.write(body.subarray(i, i + req.chunked));
    r.end();
  });
}

/**
 * Writes `bytes` on a fresh TCP connection and parses whatever HTTP answer comes back before the
 * server closes it (or `timeoutMs` passes): null when there was no answer at all.
 */
export function sendRaw(baseUrl: string, bytes: Buffer, timeoutMs = 2_000, head = false): Promise<WireResponse | null> {
  const url = new URL(baseUrl);
  return new Promise((resolve) => {
    const socket = net.connect({ host: url.hostname, port: Number(url.port) });
    const chunks: Buffer[] = [];
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(parseRawResponse(Buffer.concat(chunks), false, head));
    };
    const timer = setTimeout(finish, timeoutMs);
    socket.on('data', (c: Buffer) => {
      chunks.push(c);
      // One complete answer is enough: stop there instead of waiting for the server to close.
      if (parseRawResponse(Buffer.concat(chunks), true, head)) finish();
    });
    socket.on('error', finish);
    socket.on('close', finish);
    socket.write(bytes);
  });
}

/** Parses one HTTP/1.x response; with `complete`, null unless its body has fully arrived. */
function parseRawResponse(buf: Buffer, complete = false, head = false): WireResponse | null {
  // Interim answers (100 Continue) come first; the final one follows them.
  while (/^HTTP\/\d\.\d 1\d\d /.test(buf.subarray(0, 16).toString('latin1'))) {
    const interimEnd = buf.indexOf('\r\n\r\n');
    if (interimEnd < 0) return null;
    buf = buf.subarray(interimEnd + 4);
  }
  const end = buf.indexOf('\r\n\r\n');
  if (end < 0) return null;
  const [statusLine = '', ...lines] = buf.subarray(0, end).toString('latin1').split('\r\n');
  const status = Number(/^HTTP\/\d\.\d (\d{3})/.exec(statusLine)?.[1] ?? 0);
  const headers: IncomingHttpHeaders = {};
  for (const line of lines) {
    const i = line.indexOf(':');
    if (i > 0) headers[line.slice(0, i).trim().toLowerCase()] = line.slice(i + 1).trim();
  }
  let body = buf.subarray(end + 4);
  if (head) body = Buffer.alloc(0);
  else if (/chunked/i.test(String(headers['transfer-encoding'] ?? ''))) {
    const out: Buffer[] = [];
    let rest = body;
    let finished = false;
    for (;;) {
      const lineEnd = rest.indexOf('\r\n');
      if (lineEnd < 0) break;
      const size = parseInt(rest.subarray(0, lineEnd).toString('latin1'), 16);
      if (!Number.isFinite(size)) break;
      if (size === 0) {
        finished = true;
        break;
      }
      out.push(rest.subarray(lineEnd + 2, lineEnd + 2 + size));
      rest = rest.subarray(lineEnd + 2 + size + 2);
    }
    if (complete && !finished) return null;
    body = Buffer.concat(out);
  } else if (headers['content-length'] !== undefined) {
    const length = Number(headers['content-length']);
    if (complete && body.length < length) return null;
    body = body.subarray(0, length);
  } else if (complete && status !== 204 && status !== 304) {
    return null; // read until close
  }
  const text = body.toString('utf8');
  return { status, headers, text, json: parseJson(text) };
}

// ---------------------------------------------------------------------------------------------
// Oracles: what every answer must look like

/** What an answer was, for the tally and for "was it rejected". */
export interface Verdict {
  /** `200`, `400 VALIDATION_FAILED`, `gql VALIDATION_FAILED`, `gql ok` … */
  outcome: string;
  /** The request was refused (status >= 400, or GraphQL errors): it must not have changed anything. */
  rejected: boolean;
  /** The contract code of the refusal (REST `code` or the first GraphQL `extensions.code`). */
  code?: string;
  /** An answer without a body (HEAD): expectations are matched on the status alone. */
  headless?: boolean;
  problems: string[];
}

// Stack frames, SQL and driver messages: none may reach a client (§2).
const LEAK =
  /\bat [\w.<>]+ \(|node_modules|\.ts:\d+|prisma|SQLSTATE|syntax error at or near|invalid byte sequence|violates .* constraint|PGlite|ECONNREFUSED/i;

const header = (res: WireResponse, name: string) => {
  const v = res.headers[name];
  return Array.isArray(v) ? v.join(', ') : v;
};

export interface HttpExpectations {
  /** 503 with these codes is allowed (WeChat login, §3.2). */
  allow503?: readonly string[];
  /** A HEAD request: no body to check. */
  head?: boolean;
  /**
   * The request was broken below HTTP semantics (framing): its 400 may carry a code §2 does not list,
   * as a 431 always may — §7.1 asks only that such answers be problem+json with a request id.
   */
  framing?: boolean;
}

/** The rules of §1/§2/§7.1 for one REST (or pre-GraphQL) answer. */
export function judgeHttp(res: WireResponse, opts: HttpExpectations = {}): Verdict {
  const problems: string[] = [];
  const requestId = header(res, 'x-request-id');
  if (!requestId) problems.push('no X-Request-Id header');
  const type = header(res, 'content-type') ?? '';
  if (res.status < 400) {
    if (res.status >= 300 || res.status < 200) problems.push(`unexpected status ${res.status}`);
    if (!opts.head && res.status !== 204) {
      if (!/^application\/json/i.test(type)) problems.push(`a ${res.status} answer with content-type "${type}"`);
      else if (res.json === undefined) problems.push(`a ${res.status} answer whose body is not JSON`);
    }
    return { outcome: String(res.status), rejected: false, headless: opts.head, problems };
  }
  let code: string | undefined;
  const anyCode = res.status === 431 || (opts.framing && res.status === 400);
  if (opts.head) {
    if (!/^application\/problem\+json/i.test(type))
      problems.push(`a ${res.status} HEAD answer with content-type "${type}"`);
  } else if (!/^application\/problem\+json/i.test(type)) {
    problems.push(`a ${res.status} answer that is not problem+json (content-type "${type}")`);
  } else if (!res.json || typeof res.json !== 'object') {
    problems.push(`a ${res.status} problem whose body is not a JSON object`);
  } else {
    code = res.json.code;
    if (anyCode && typeof code === 'string' && code && !(code in CONTRACT_STATUS)) {
      // §2 has no code for a 431 or a framing error; any stable code will do.
    } else if (typeof code !== 'string' || !(code in CONTRACT_STATUS))
      problems.push(`problem code ${JSON.stringify(code)} is not a contract code`);
    else if (CONTRACT_STATUS[code] !== res.status)
      problems.push(`code ${code} with status ${res.status} (contract: ${CONTRACT_STATUS[code]})`);
    if (res.json.status !== res.status) problems.push(`problem "status" ${res.json.status} differs from ${res.status}`);
    if (requestId && res.json.request_id !== requestId) problems.push('problem request_id differs from X-Request-Id');
  }
  if (res.status >= 500 && !(res.status === 503 && code && opts.allow503?.includes(code))) {
    problems.push(`server error ${res.status} ${code ?? ''}`.trim());
  }
  if (res.status === 401 && !header(res, 'www-authenticate')) problems.push('401 without WWW-Authenticate');
  if (res.status === 429 && !header(res, 'retry-after')) problems.push('429 without Retry-After');
  if (res.status === 405 && !header(res, 'allow')) problems.push('405 without Allow');
  if (LEAK.test(res.text)) problems.push('the body leaks internals (stack, SQL or driver text)');
  return { outcome: `${res.status}${code ? ` ${code}` : ''}`, rejected: true, code, headless: opts.head, problems };
}

/**
 * The rules for a /graphql answer: problem+json from the HTTP layer (415, 413, MALFORMED_JSON …), or
 * a GraphQL result whose every error carries a contract code — never INTERNAL, never a 5xx.
 */
export function judgeGraphQL(res: WireResponse, opts: { allowedErrorCodes?: readonly string[] } = {}): Verdict {
  const type = header(res, 'content-type') ?? '';
  if (/^application\/problem\+json/i.test(type)) return judgeHttp(res);
  const problems: string[] = [];
  if (!header(res, 'x-request-id')) problems.push('no X-Request-Id header');
  if (res.status >= 500) problems.push(`server error ${res.status}`);
  const body = res.json;
  if (!/^application\/(graphql-response\+)?json/i.test(type))
    problems.push(`a ${res.status} GraphQL answer with content-type "${type}"`);
  if (!body || typeof body !== 'object' || (!('data' in body) && !('errors' in body))) {
    problems.push('a GraphQL answer with neither data nor errors');
    return { outcome: `gql ${res.status} ?`, rejected: true, problems };
  }
  const errors: any[] = Array.isArray(body.errors) ? body.errors : [];
  if ('errors' in body && (!Array.isArray(body.errors) || errors.length === 0))
    problems.push('"errors" is not a non-empty list');
  const codes = errors.map((e) => e?.extensions?.code);
  for (const c of codes) {
    if (typeof c !== 'string' || !(c in CONTRACT_STATUS))
      problems.push(`GraphQL error code ${JSON.stringify(c)} is not a contract code`);
    else if (c === 'INTERNAL' || c === 'SERVICE_UNAVAILABLE') problems.push(`GraphQL error ${c}`);
    else if (opts.allowedErrorCodes && !opts.allowedErrorCodes.includes(c))
      problems.push(`GraphQL error ${c} where only ${opts.allowedErrorCodes.join('/')} may appear`);
  }
  if (res.status >= 400 && errors.length === 0) problems.push(`status ${res.status} without errors`);
  if (LEAK.test(res.text)) problems.push('the body leaks internals (stack, SQL or driver text)');
  const code = codes[0] as string | undefined;
  return { outcome: errors.length ? `gql ${code}` : 'gql ok', rejected: errors.length > 0, code, problems };
}

// ---------------------------------------------------------------------------------------------
// The database fingerprint

/** Every table the service writes, as prisma/schema.prisma maps them. */
export const TABLES = [
  'categories',
  'items',
  'skus',
  'item_images',
  'customers',
  'admins',
  'customer_sessions',
  'idempotency_records',
] as const;
export type Table = (typeof TABLES)[number];

// One statement, cheap enough to run after every case. Per table: the row count and the highest id
// (an insert or a replaced SKU set shows) plus what updates touch — `updated_at`, which Prisma sets on
// every update; for sessions, whose rotation and revocation are raw SQL, the rotation and revocation
// times; and for the small account and category tables an md5 over every row.
const FINGERPRINT_PARTS: Record<Table, string> = {
  categories: `count(*), max(id), max(updated_at), md5(string_agg(t::text, ',' ORDER BY t.id))`,
  items: `count(*), max(id), max(updated_at)`,
  skus: `count(*), max(id)`,
  item_images: `count(*), max(id)`,
  customers: `count(*), max(id), max(updated_at), md5(string_agg(t::text, ',' ORDER BY t.id))`,
  admins: `count(*), max(id), max(updated_at), md5(string_agg(t::text, ',' ORDER BY t.id))`,
  customer_sessions: `count(*), max(created_at), max(rotated_at), max(revoked_at), count(revoked_at)`,
  idempotency_records: `count(*), max(id), max(created_at)`,
};
const FINGERPRINT_SQL = `SELECT ${TABLES.map((t) => `(SELECT concat_ws('|', ${FINGERPRINT_PARTS[t]}) FROM ${t} t) AS ${t}`).join(', ')}`;

export async function fingerprint(app: TestApp): Promise<Record<Table, string>> {
  const [row] = await app.db.sql.query<Record<Table, string>>(FINGERPRINT_SQL);
  if (!row) throw new Error('the fingerprint query returned no row'); // a SELECT without FROM always returns one
  return row;
}

/**
 * Remembers the fingerprint after each case, so checking a case costs one statement: the state
 * after case n is the state before case n+1 (cases run one at a time and nothing else writes).
 */
export class DbWatch {
  private last!: Record<Table, string>;
  private constructor(private readonly app: TestApp) {}

  static async start(app: TestApp): Promise<DbWatch> {
    const w = new DbWatch(app);
    await w.reset();
    return w;
  }

  /** Re-reads the state, after setup writes outside the fuzz loop. */
  async reset(): Promise<void> {
    this.last = await fingerprint(this.app);
  }

  /** Tables that changed since the last call (except `exempt`); the new state becomes the reference. */
  async changedSince(exempt: readonly Table[] = []): Promise<Table[]> {
    const now = await fingerprint(this.app);
    const changed = TABLES.filter((t) => now[t] !== this.last[t] && !exempt.includes(t));
    this.last = now;
    return changed;
  }
}

// ---------------------------------------------------------------------------------------------
// The tally: proof that generated cases reached the routes and took more than one path

export class Tally {
  private readonly counts = new Map<string, Map<string, number>>();
  private readonly prescribedCounts = new Map<string, number>();
  private readonly ms = { http: 0, db: 0 };

  /** Counts a case of `route` whose exact answer the contract prescribes (and which was checked). */
  prescribed(route: string): void {
    this.prescribedCounts.set(route, (this.prescribedCounts.get(route) ?? 0) + 1);
  }

  /** Adds one case's time on the wire and in the database check (shown in the summary). */
  time(httpMs: number, dbMs: number): void {
    this.ms.http += httpMs;
    this.ms.db += dbMs;
  }

  add(route: string, outcome: string): void {
    const byOutcome = this.counts.get(route) ?? new Map<string, number>();
    this.counts.set(route, byOutcome);
    byOutcome.set(outcome, (byOutcome.get(outcome) ?? 0) + 1);
  }

  total(route?: string): number {
    const routes = route ? [this.counts.get(route)] : [...this.counts.values()];
    return routes.reduce((n, m) => n + [...(m?.values() ?? [])].reduce((a, b) => a + b, 0), 0);
  }

  /** Cases of `route` whose outcome matches. */
  count(route: string, outcome: RegExp): number {
    return [...(this.counts.get(route) ?? new Map<string, number>())]
      .filter(([o]) => outcome.test(o))
      .reduce((n, [, c]) => n + c, 0);
  }

  /**
   * A report for the log: one line with the totals, or (FUZZ_SUMMARY=1) one line per route with its
   * outcomes — which is what the spread assertions print when they fail.
   */
  report(title: string): string {
    if (process.env.FUZZ_SUMMARY) return `${title} (${process.env.TEST_DB}):\n${this.summary()}`;
    return `${title} (${process.env.TEST_DB}): ${this.total()} cases, ${Math.round(this.ms.http)} ms on the wire, ${Math.round(this.ms.db)} ms checking the database (FUZZ_SUMMARY=1 for outcomes per route)`;
  }

  /** One line per route: `route  n  (outcome × count, …)`, for the log and for failure messages. */
  summary(): string {
    const timing = `  time: ${Math.round(this.ms.http)} ms on the wire, ${Math.round(this.ms.db)} ms checking the database\n`;
    return (
      timing +
      [...this.counts]
        .map(([route, m]) => {
          const parts = [...m].sort((a, b) => b[1] - a[1]).map(([o, c]) => `${o}×${c}`);
          const prescribed = this.prescribedCounts.get(route);
          return `  ${route.padEnd(34)} ${String(this.total(route)).padStart(5)}  ${parts.join(', ')}${prescribed ? `  [${prescribed} prescribed]` : ''}`;
        })
        .join('\n')
    );
  }

  /**
   * Asserts that `route` saw at least `min.total` cases and, for each pattern, at least that many
   * outcomes matching it — so a suite cannot pass by never reaching the code it claims to test.
   */
  requireSpread(
    route: string,
    min: { total: number; prescribed?: number; outcomes?: ReadonlyArray<readonly [RegExp, number]> },
  ): string[] {
    const missing: string[] = [];
    if (this.total(route) < min.total) missing.push(`${route}: ${this.total(route)} cases, expected >= ${min.total}`);
    const prescribed = this.prescribedCounts.get(route) ?? 0;
    if (min.prescribed !== undefined && prescribed < min.prescribed) {
      missing.push(`${route}: ${prescribed} cases with a prescribed answer, expected >= ${min.prescribed}`);
    }
    for (const [pattern, n] of min.outcomes ?? []) {
      const seen = this.count(route, pattern);
      if (seen < n) missing.push(`${route}: ${seen} outcomes matching ${pattern}, expected >= ${n}`);
    }
    return missing;
  }
}

// ---------------------------------------------------------------------------------------------
// One case, end to end

export interface CaseChecks {
  /** The answer's verdict (judgeHttp / judgeGraphQL). */
  verdict: Verdict;
  /** The request cannot change anything even when it succeeds (a read). */
  readOnly?: boolean;
  /** Tables a rejected request may legitimately change (a replayed refresh revokes its session). */
  exempt?: readonly Table[];
  /** Outcomes the contract prescribes for this very case (`400 VALIDATION_FAILED`), if it does. */
  expected?: readonly string[];
  /** Outcomes the contract rules out for this case (a valid gzip body is not MALFORMED_JSON). */
  forbidden?: readonly string[];
}

/** Describes a request and its answer for a violation message (bounded, escapes visible). */
export function describeExchange(req: WireRequest, res: WireResponse | null): string {
  const body =
    req.body === undefined
      ? ''
      : Buffer.isBuffer(req.body)
        ? `0x${req.body.subarray(0, 200).toString('hex')}`
        : req.body;
  const shown = (s: string, n: number) => JSON.stringify(s.length > n ? `${s.slice(0, n)}…(${s.length} chars)` : s);
  return (
    `request: ${req.method} ${req.path}\n` +
    `  headers: ${JSON.stringify(req.headers ?? [])}${req.chunked ? ' (chunked)' : ''}\n` +
    `  body: ${shown(String(body), 600)}\n` +
    (res
      ? `answer: ${res.status} ${header(res, 'content-type') ?? ''}\n  ${shown(res.text, 600)}`
      : 'answer: none (connection closed)')
  );
}

/**
 * Checks the database after a case and throws one error listing everything wrong with it. Always
 * call it once per case (it advances the watch), even when the answer already looks wrong.
 */
export async function settleCase(watch: DbWatch, checks: CaseChecks, describe: () => string): Promise<void> {
  const problems = [...checks.verdict.problems];
  const changed = await watch.changedSince(checks.exempt);
  if (changed.length && (checks.verdict.rejected || checks.readOnly)) {
    problems.push(
      `${checks.verdict.rejected ? 'a rejected' : 'a read-only'} request changed table(s) ${changed.join(', ')}`,
    );
  }
  const { outcome, headless } = checks.verdict;
  const matches = (e: string) => e === outcome || (headless && e.split(' ')[0] === outcome);
  if (checks.expected && !checks.expected.some(matches)) {
    problems.push(`expected ${checks.expected.join(' or ')} (contract), got ${checks.verdict.outcome}`);
  }
  if (checks.forbidden?.some(matches)) problems.push(`${checks.verdict.outcome} is ruled out here (contract)`);
  if (problems.length) throw new Error(`${problems.join('; ')}\n${describe()}`);
}

/**
 * Sends `req`, judges the answer, tallies it under `route` and settles the case (database and
 * expectations); throws one error describing the exchange when anything is wrong.
 */
export async function exchange(
  ctx: { url: string; watch: DbWatch; tally: Tally },
  route: string,
  req: WireRequest,
  judge: (res: WireResponse) => Verdict,
  checks: Omit<CaseChecks, 'verdict'> & { exemptWhen?: (v: Verdict) => readonly Table[] } = {},
): Promise<{ res: WireResponse | null; verdict: Verdict }> {
  let res: WireResponse | null = null;
  let verdict: Verdict;
  const started = performance.now();
  try {
    res = await send(ctx.url, req);
    verdict = judge(res);
  } catch (err) {
    verdict = { outcome: 'no answer', rejected: true, problems: [`no answer: ${(err as Error).message}`] };
  }
  const sent = performance.now();
  ctx.tally.add(route, verdict.outcome);
  if (checks.expected) ctx.tally.prescribed(route);
  const exempt = [...(checks.exempt ?? []), ...(checks.exemptWhen?.(verdict) ?? [])];
  // Whatever else is wrong with it, a body over 100 KiB may always be refused for its size (§1), and
  // a request head near Node's 16 KiB limit for its (§7.1: 431; the code is not the contract's).
  let expected = checks.expected;
  if (expected && bodyBytes(req) > 100 * 1024) expected = [...expected, '413 PAYLOAD_TOO_LARGE'];
  if (expected && verdict.outcome.startsWith('431') && headBytes(req) > 12 * 1024)
    expected = [...expected, verdict.outcome];
  try {
    await settleCase(ctx.watch, { ...checks, expected, verdict, exempt }, () => describeExchange(req, res));
  } finally {
    ctx.tally.time(sent - started, performance.now() - sent);
  }
  return { res, verdict };
}

/**
 * Writes raw bytes on a fresh connection and settles the case like `exchange`. No answer at all is
 * acceptable for broken framing (the server may just close); an answer must be problem+json (§7.1).
 */
export async function exchangeRaw(
  ctx: { url: string; watch: DbWatch; tally: Tally },
  route: string,
  bytes: Buffer,
  opts: { head?: boolean; timeoutMs?: number; expected?: readonly string[] } = {},
): Promise<WireResponse | null> {
  const res = await sendRaw(ctx.url, bytes, opts.timeoutMs ?? 1_000, opts.head);
  const verdict: Verdict = res
    ? judgeHttp(res, { framing: true, head: opts.head })
    : { outcome: 'no answer', rejected: true, problems: [] };
  ctx.tally.add(route, verdict.outcome);
  if (opts.expected) ctx.tally.prescribed(route);
  const shown = JSON.stringify(bytes.subarray(0, 400).toString('latin1'));
  await settleCase(
    ctx.watch,
    { verdict, expected: opts.expected },
    () =>
      `raw request: ${shown}${bytes.length > 400 ? `…(${bytes.length} bytes)` : ''}\n` +
      (res
        ? `answer: ${res.status} ${header(res, 'content-type') ?? ''}\n  ${JSON.stringify(res.text.slice(0, 400))}`
        : 'answer: none'),
  );
  return res;
}
