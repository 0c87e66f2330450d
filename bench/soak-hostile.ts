/**
 * The hostile side of `npm run soak`: documents and bytes a careless or malicious client sends
 * (contract §7.1, §7.2, §7.4), written byte for byte on raw sockets so that nothing in a client
 * library tidies them up, and the slowloris connections that must be closed by the server.
 */
import net from 'node:net';
import { deflateSync, gzipSync } from 'node:zlib';
import { rng, type Tally } from './soak-support.ts';

export interface RawAnswer {
  status?: number;
  headers: Record<string, string>;
  body: string;
  /** Why there is no answer (connection error, timeout, closed without a status line). */
  error?: string;
  ms: number;
}

interface Parsed {
  status?: number;
  headers: Record<string, string>;
  body: string;
  complete: boolean;
}

/** Parses an HTTP/1.1 answer as far as it arrived (content-length or chunked bodies). */
export function parseAnswer(buf: Buffer): Parsed {
  const end = buf.indexOf('\r\n\r\n');
  if (end < 0) return { headers: {}, body: '', complete: false };
  const lines = buf.subarray(0, end).toString('latin1').split('\r\n');
  const m = /^HTTP\/1\.[01] (\d{3})/.exec(lines[0] ?? '');
  const headers: Record<string, string> = {};
  for (const line of lines.slice(1)) {
    const i = line.indexOf(':');
    if (i <= 0) continue;
    const k = line.slice(0, i).trim().toLowerCase();
    const v = line.slice(i + 1).trim();
    headers[k] = headers[k] === undefined ? v : `${headers[k]}, ${v}`;
  }
  let raw = buf.subarray(end + 4);
  let complete = false;
  if (headers['transfer-encoding']?.toLowerCase().includes('chunked')) {
    const parts: Buffer[] = [];
    let at = 0;
    for (;;) {
      const eol = raw.indexOf('\r\n', at);
      if (eol < 0) break;
      const size = parseInt(raw.subarray(at, eol).toString('latin1'), 16);
      if (!Number.isFinite(size)) break;
      if (size === 0) {
        complete = true;
        break;
      }
      if (raw.length < eol + 2 + size) break;
      parts.push(raw.subarray(eol + 2, eol + 2 + size));
      at = eol + 2 + size + 2;
    }
    raw = Buffer.concat(parts);
  } else if (headers['content-length'] !== undefined) {
    const n = Number(headers['content-length']);
    complete = raw.length >= n;
    raw = raw.subarray(0, n);
  }
  return { status: m ? Number(m[1]) : undefined, headers, body: raw.subarray(0, 65536).toString('utf8'), complete };
}

/**
 * Connects, writes `payload` (write errors ignored: the server may answer and close before it has
 * read everything, e.g. 413), and reads the answer until it is complete or the server closes.
 */
export function rawExchange(port: number, payload: Buffer, timeoutMs = 10_000): Promise<RawAnswer> {
  const started = performance.now();
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let settled = false;
    const sock = net.connect({ host: '127.0.0.1', port });
    const finish = (error?: string) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      sock.destroy();
      const p = parseAnswer(Buffer.concat(chunks));
      const ms = performance.now() - started;
      if (p.status !== undefined) resolve({ status: p.status, headers: p.headers, body: p.body, ms });
      else resolve({ headers: {}, body: '', error: error ?? 'closed without an answer', ms });
    };
    const timer = setTimeout(() => finish(`no answer within ${timeoutMs} ms`), timeoutMs);
    sock.on('connect', () => sock.write(payload, () => undefined));
    sock.on('data', (d: Buffer) => {
      chunks.push(d);
      if (parseAnswer(Buffer.concat(chunks)).complete) finish();
    });
    sock.on('end', () => finish());
    sock.on('close', () => finish());
    sock.on('error', (err: NodeJS.ErrnoException) => finish(err.code ?? err.message));
  });
}

/** The bytes of one HTTP/1.1 request; `Host`, `Content-Length` and `Connection: close` are added. */
export function rawRequest(
  port: number,
  method: string,
  path: string,
  headers: Array<[string, string]>,
  body?: Buffer | string,
): Buffer {
  const b = body === undefined ? undefined : Buffer.isBuffer(body) ? body : Buffer.from(body, 'utf8');
  const lines = [`${method} ${path} HTTP/1.1`, `Host: 127.0.0.1:${port}`, ...headers.map(([k, v]) => `${k}: ${v}`)];
  if (b) lines.push(`Content-Length: ${b.length}`);
  lines.push('Connection: close');
  return Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1'), b ?? Buffer.alloc(0)]);
}

// ---------- the cases ----------

export interface HostileCase {
  name: string;
  bytes: Buffer;
  /** Statuses that keep the contract. */
  expect: number[];
  /** The contract code the answer should carry (problem+json `code`, GraphQL `extensions.code`). */
  code?: string;
  /** A GraphQL answer (JSON with `errors`) rather than problem+json. */
  graphql?: boolean;
  /** The server may close the connection without any answer (broken framing, oversized uploads). */
  closeOk?: boolean;
}

const JSON_HEADERS: Array<[string, string]> = [['Content-Type', 'application/json']];
const GQL_HEADERS: Array<[string, string]> = [
  ['Content-Type', 'application/json'],
  ['Accept', 'application/graphql-response+json, application/json'],
];

const ITEM_FIELDS =
  'id name categoryId category { id name } price stock skus { id skuCode specs price stock } images { id url sortOrder } createdAt updatedAt';

export function hostileCases(port: number, adminToken: string | undefined): HostileCase[] {
  /** `variables` is JSON text (a deeply nested value cannot go through JSON.stringify). */
  const gql = (name: string, query: string, extra: Partial<HostileCase> = {}, variables?: string): HostileCase => ({
    name,
    bytes: rawRequest(
      port,
      'POST',
      '/graphql',
      GQL_HEADERS,
      variables === undefined
        ? JSON.stringify({ query })
        : `{"query":${JSON.stringify(query)},"variables":${variables}}`,
    ),
    expect: [200, 400],
    code: 'VALIDATION_FAILED',
    graphql: true,
    ...extra,
  });
  const login = (
    name: string,
    body: Buffer | string,
    extra: Partial<HostileCase> & { headers?: Array<[string, string]> } = {},
  ): HostileCase => ({
    name,
    bytes: rawRequest(port, 'POST', '/api/v1/auth/login', [...JSON_HEADERS, ...(extra.headers ?? [])], body),
    expect: [400],
    code: 'VALIDATION_FAILED',
    ...extra,
  });
  const loginJson = JSON.stringify({ username: 'soak-hostile@example.com', password: 'wrong-password' });
  const r = rng(7);
  const noise = Buffer.from(Array.from({ length: 512 }, () => Math.floor(r() * 256)));

  const cases: HostileCase[] = [
    // §7.2: cost counts page sizes; 15 aliases (the alias limit) of a full 100-item page is far over it.
    gql(
      'gql_15_aliases_items_100',
      `query { ${Array.from({ length: 15 }, (_, i) => `a${i}: items(limit: 100) { total items { ${ITEM_FIELDS} } }`).join(' ')} }`,
    ),
    gql('gql_depth_200', `query { ${'a { '.repeat(200)}id${' }'.repeat(200)} }`),
    gql('gql_depth_30000', `{${'a{'.repeat(30_000)}b${'}'.repeat(30_000)}}`),
    gql('gql_tokens_95k', `query { items { ${'total '.repeat(15_800)} } }`),
    gql(
      'gql_deep_variables_40000',
      'query($k: String) { items(keyword: $k) { total } }',
      {},
      `{"k":${'['.repeat(40_000)}${']'.repeat(40_000)}}`,
    ),
    gql('gql_nul_in_argument', 'query { items(keyword: "a\\u0000b") { total } }'),
    gql(
      'gql_nul_in_variable',
      'query($k: String) { items(keyword: $k) { total } }',
      {},
      JSON.stringify({ k: 'a\u0000b' }),
    ),
    gql(
      'gql_lone_surrogate_variable',
      'query($k: String) { items(keyword: $k) { total } }',
      {},
      JSON.stringify({ k: 'a\ud800b' }),
    ),
    {
      name: 'gql_body_1mib',
      bytes: rawRequest(
        port,
        'POST',
        '/graphql',
        GQL_HEADERS,
        JSON.stringify({ query: `query { items { ${'total '.repeat(175_000)} } }` }),
      ),
      expect: [413],
      code: 'PAYLOAD_TOO_LARGE',
      closeOk: true,
    },
    {
      name: 'gql_invalid_utf8',
      bytes: rawRequest(
        port,
        'POST',
        '/graphql',
        GQL_HEADERS,
        Buffer.concat([
          Buffer.from('{"query":"{ items(keyword: \\"'),
          Buffer.from([0xc3, 0x28, 0xff, 0xfe]),
          Buffer.from('\\") { total } }"}'),
        ]),
      ),
      expect: [400],
      code: 'MALFORMED_JSON',
    },
    login(
      'rest_login_invalid_utf8',
      Buffer.concat([
        Buffer.from('{"username":"'),
        Buffer.from([0xc3, 0x28, 0xed, 0xa0, 0x80]),
        Buffer.from('@example.com","password":"x"}'),
      ]),
      { code: 'MALFORMED_JSON' },
    ),
    login('rest_login_nul_username', JSON.stringify({ username: 'a\u0000b@example.com', password: 'x' })),
    login('rest_login_lone_surrogate', JSON.stringify({ username: 'a\ud800@example.com', password: 'x' })),
    login('rest_login_nested_40000', `{"username":${'['.repeat(40_000)}${']'.repeat(40_000)},"password":"x"}`),
    login(
      'rest_login_nested_objects_16000',
      `{"username":${'{"a":'.repeat(16_000)}1${'}'.repeat(16_000)},"password":"x"}`,
    ),
    login('rest_login_truncated_json', '{"username":"x@example.com","password":', { code: 'MALFORMED_JSON' }),
    login('rest_login_gzip_corrupt', Buffer.concat([Buffer.from([0x1f, 0x8b, 0x08, 0x00]), noise]), {
      headers: [['Content-Encoding', 'gzip']],
      code: 'MALFORMED_JSON',
    }),
    login('rest_login_gzip_truncated', gzipSync(loginJson).subarray(0, 20), {
      headers: [['Content-Encoding', 'gzip']],
      code: 'MALFORMED_JSON',
    }),
    login('rest_login_deflate_corrupt', noise, { headers: [['Content-Encoding', 'deflate']], code: 'MALFORMED_JSON' }),
    login('rest_login_gzip_bomb_10mib', gzipSync(`{"username":"${'a'.repeat(10 * 1024 * 1024)}","password":"x"}`), {
      headers: [['Content-Encoding', 'gzip']],
      expect: [413],
      code: 'PAYLOAD_TOO_LARGE',
      closeOk: true,
    }),
    // A well-formed compressed body must be inflated and validated (the username is not an e-mail).
    login('rest_login_deflate_valid', deflateSync(JSON.stringify({ username: 'not-an-email', password: 'x' })), {
      headers: [['Content-Encoding', 'deflate']],
    }),
    login('rest_login_unknown_encoding', gzipSync(loginJson), {
      headers: [['Content-Encoding', 'compress']],
      expect: [415],
      code: 'UNSUPPORTED_MEDIA_TYPE',
    }),
    login('rest_login_body_1mib', JSON.stringify({ username: 'x@example.com', password: 'p'.repeat(1024 * 1024) }), {
      expect: [413],
      code: 'PAYLOAD_TOO_LARGE',
      closeOk: true,
    }),
    {
      name: 'rest_refresh_two_authorization_headers',
      bytes: rawRequest(port, 'POST', '/api/v1/auth/refresh', [
        ['Authorization', 'Bearer eyJhbGciOiJIUzI1NiJ9.e30.x'],
        ['Authorization', 'Bearer eyJhbGciOiJub25lIn0.e30.'],
      ]),
      expect: [401],
      code: 'TOKEN_INVALID',
    },
    {
      name: 'rest_items_nul_keyword',
      bytes: rawRequest(port, 'GET', '/api/v1/items?keyword=a%00b', []),
      expect: [400],
      code: 'VALIDATION_FAILED',
    },
    // Percent-encoded bytes that are not UTF-8 (a surrogate's CESU-8 form): refused, or decoded to U+FFFD.
    {
      name: 'rest_items_invalid_utf8_keyword',
      bytes: rawRequest(port, 'GET', '/api/v1/items?keyword=a%ED%A0%80%FFb', []),
      expect: [200, 400],
    },
    {
      name: 'rest_items_keyword_8k',
      bytes: rawRequest(port, 'GET', `/api/v1/items?keyword=${'x'.repeat(8000)}`, []),
      expect: [400],
      code: 'VALIDATION_FAILED',
    },
    {
      name: 'rest_items_bad_numbers',
      bytes: rawRequest(port, 'GET', '/api/v1/items?page=-1&limit=1e309&category_id=0x10&page=2', []),
      expect: [400],
      code: 'VALIDATION_FAILED',
    },
    {
      name: 'http_broken_framing',
      bytes: Buffer.from('GARBAGE /\u0001 HTTP/9.9\r\nHost\r\n\r\n', 'latin1'),
      expect: [400],
      closeOk: true,
    },
    {
      name: 'http_headers_32k',
      bytes: rawRequest(port, 'GET', '/api/v1/items', [['X-Padding', 'p'.repeat(32 * 1024)]]),
      expect: [431],
      closeOk: true,
    },
    {
      name: 'http_bad_chunked_body',
      bytes: Buffer.from(
        `POST /api/v1/auth/login HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\nzz\r\n{}\r\n0\r\n\r\n`,
      ),
      expect: [400],
      closeOk: true,
    },
  ];
  if (adminToken) {
    const auth: Array<[string, string]> = [...JSON_HEADERS, ['Authorization', `Bearer ${adminToken}`]];
    const item = (specs: Record<string, string>) =>
      JSON.stringify({
        name: 'Hostile item',
        category_id: 1,
        price: 1,
        stock: 1,
        skus: [{ sku_code: 'H-1', specs }],
        images: [],
      });
    cases.push(
      {
        name: 'admin_create_nul_in_specs_key',
        bytes: rawRequest(port, 'POST', '/admin/api/items', auth, item({ 'col\u0000or': 'red' })),
        expect: [400],
        code: 'VALIDATION_FAILED',
      },
      {
        name: 'admin_create_nul_in_specs_value',
        bytes: rawRequest(port, 'POST', '/admin/api/items', auth, item({ color: 're\u0000d' })),
        expect: [400],
        code: 'VALIDATION_FAILED',
      },
      {
        name: 'admin_create_nul_in_name',
        bytes: rawRequest(
          port,
          'POST',
          '/admin/api/items',
          auth,
          JSON.stringify({ name: 'x\u0000', category_id: 1, price: 1, stock: 1, skus: [], images: [] }),
        ),
        expect: [400],
        code: 'VALIDATION_FAILED',
      },
      // A raw NUL byte in a header value is not HTTP at all: the parser refuses it (400 from the client-error hook).
      {
        name: 'admin_create_nul_byte_in_idempotency_key',
        bytes: rawRequest(
          port,
          'POST',
          '/admin/api/items',
          [...auth, ['Idempotency-Key', 'k\u0000y']],
          item({ color: 'red' }),
        ),
        expect: [400],
        closeOk: true,
      },
    );
  }
  return cases;
}

/** First body seen for each (case, outcome), for the report. */
export type Samples = Map<string, string>;

/** Classifies one answer into the case's tally: statuses, connection errors and contract deviations. */
export function judge(c: HostileCase, a: RawAnswer, tally: Tally, samples: Samples): void {
  const sample = (what: string) => {
    const key = `${c.name} ${what}`;
    if (!samples.has(key) && samples.size < 200)
      samples.set(key, `${a.status ?? a.error} ${a.headers['content-type'] ?? ''} ${a.body.slice(0, 300)}`);
  };
  if (a.status === undefined) {
    if (c.closeOk && a.error && !a.error.startsWith('no answer')) {
      tally.answer('closed', a.ms);
      tally.deviation(`${c.name}: closed without an answer (expected ${c.expect.join('/')})`);
    } else {
      tally.error(a.error ?? 'no answer', a.ms);
      sample(`error ${a.error}`);
    }
    return;
  }
  tally.answer(a.status, a.ms);
  if (a.status >= 500) {
    sample(String(a.status));
    return;
  }
  if (!c.expect.includes(a.status)) {
    tally.deviation(`${c.name}: ${a.status} (expected ${c.expect.join('/')})`);
    sample(String(a.status));
  }
  const type = a.headers['content-type'] ?? '';
  if (c.graphql && /json/.test(type) && !type.includes('problem+json')) {
    let doc: { errors?: Array<{ extensions?: { code?: string } }>; data?: unknown } | undefined;
    try {
      doc = JSON.parse(a.body);
    } catch {
      tally.deviation(`${c.name}: GraphQL answer is not JSON`);
      return;
    }
    if (!doc?.errors?.length) {
      tally.deviation(`${c.name}: executed without errors`);
      sample('no-errors');
    } else if (c.code && !doc.errors.some((e) => e.extensions?.code === c.code)) {
      tally.deviation(`${c.name}: errors without extensions.code ${c.code}`);
      sample('code');
    }
    if (doc?.data && /"items":\[\{/.test(JSON.stringify(doc.data))) tally.deviation(`${c.name}: returned data`);
    return;
  }
  if (a.status >= 400) {
    if (!type.includes('application/problem+json')) {
      tally.deviation(`${c.name}: ${a.status} not problem+json (${type || 'no content-type'})`);
      sample('type');
    } else if (c.code && !a.body.includes(`"code":"${c.code}"`)) {
      tally.deviation(`${c.name}: ${a.status} without code ${c.code}`);
      sample('code');
    }
    if (!a.headers['x-request-id']) tally.deviation(`${c.name}: ${a.status} without X-Request-Id`);
  }
}

// ---------- slowloris ----------

export interface SlowlorisResult {
  kind: 'headers' | 'body';
  started_at_s: number;
  /** When the server closed the connection, seconds after it opened; null if it never did. */
  closed_after_s: number | null;
  limit_s: number;
  bytes_sent: number;
  /** The status line the server wrote before closing, if any (408 is the contract's). */
  status: number | null;
  pass: boolean;
}

/**
 * Opens a connection and sends one byte per second: of a header line (`headers`, the contract
 * wants the headers within 10 s) or of a declared 4 KiB body (`body`, the whole request within 30 s).
 * The server must close it; the client gives up at `limitMs`.
 */
export function slowloris(
  port: number,
  kind: 'headers' | 'body',
  limitMs: number,
  startedAtS: number,
): Promise<SlowlorisResult> {
  const prefix =
    kind === 'headers'
      ? `GET /api/v1/items HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nX-Slow: `
      : `POST /api/v1/auth/login HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\nContent-Length: 4096\r\n\r\n`;
  const started = performance.now();
  return new Promise((resolve) => {
    let sent = 0;
    let settled = false;
    const chunks: Buffer[] = [];
    const sock = net.connect({ host: '127.0.0.1', port });
    const finish = (closedByServer: boolean) => {
      if (settled) return;
      settled = true;
      clearInterval(drip);
      clearTimeout(limit);
      sock.destroy();
      const closedAfter = closedByServer ? (performance.now() - started) / 1000 : null;
      resolve({
        kind,
        started_at_s: Math.round(startedAtS * 10) / 10,
        closed_after_s: closedAfter === null ? null : Math.round(closedAfter * 10) / 10,
        limit_s: limitMs / 1000,
        bytes_sent: sent,
        status: parseAnswer(Buffer.concat(chunks)).status ?? null,
        pass: closedByServer,
      });
    };
    const drip = setInterval(() => {
      if (!sock.writable) return;
      sock.write(kind === 'headers' ? 'a' : ' ', () => undefined);
      sent++;
    }, 1000);
    const limit = setTimeout(() => finish(false), limitMs);
    sock.on('connect', () => sock.write(prefix, () => undefined));
    sock.on('data', (d: Buffer) => chunks.push(d));
    sock.on('end', () => finish(true));
    sock.on('close', () => finish(true));
    sock.on('error', () => finish(true));
  });
}
