/**
 * Contract §7.1 and §7.4 at the HTTP layer: compressed and non-UTF-8 bodies, answers written by the
 * server's client-error hook (431, broken framing, timeouts), duplicate Authorization headers and
 * the server-side cap on token lifetimes.
 */
import { once } from 'node:events';
import net from 'node:net';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CUSTOMER_PASSWORD, expectProblem, loginAsAdmin, makeCustomer } from '../helpers/accounts.ts';
import { signAdminToken } from '../helpers/catalog-admin.ts';
import { type ApiResponse, startTestApp, type TestApp } from '../helpers/test-app.ts';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp({ LOGIN_IP_PER_MINUTE: '1000' });
});
afterAll(() => app.close());

/** POSTs raw bytes to the customer login with the given headers. */
async function postRaw(body: Buffer, headers: Record<string, string>): Promise<ApiResponse> {
  const res = await fetch(`${app.url}/api/v1/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: new Uint8Array(body),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, body: text ? JSON.parse(text) : undefined };
}

/** Sends `request` on a raw socket and resolves with everything the server wrote before closing. */
async function rawExchange(request: string | Buffer): Promise<string> {
  const url = new URL(app.url);
  const socket = net.connect(Number(url.port), url.hostname);
  await once(socket, 'connect');
  let answer = '';
  socket.on('data', (d: Buffer) => (answer += d.toString('latin1')));
  socket.write(request);
  await once(socket, 'close');
  return answer;
}

/** Splits a raw HTTP answer into status, headers and the parsed problem body. */
function parseRaw(answer: string) {
  const [head = '', body = ''] = answer.split('\r\n\r\n');
  const [statusLine = '', ...lines] = head.split('\r\n');
  const headers = new Map(
    lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]),
  );
  return { status: Number(statusLine.split(' ')[1]), headers, problem: JSON.parse(body) as Record<string, unknown> };
}

describe('request bodies', () => {
  const login = async () =>
    JSON.stringify({ username: (await makeCustomer(app)).username, password: CUSTOMER_PASSWORD });

  it('when the body is gzip, deflate or br encoded, then it is inflated and served', async () => {
    for (const [encoding, pack] of [
      ['gzip', gzipSync],
      ['deflate', deflateSync],
      ['br', brotliCompressSync],
    ] as const) {
      const res = await postRaw(pack(Buffer.from(await login())), { 'content-encoding': encoding });
      expect(res.status, encoding).toBe(200);
    }
  });

  it('when a gzip body is corrupt or truncated, then 400 MALFORMED_JSON (never a 500)', async () => {
    const packed = gzipSync(Buffer.from(await login()));
    expectProblem(
      await postRaw(packed.subarray(0, packed.length - 8), { 'content-encoding': 'gzip' }),
      400,
      'MALFORMED_JSON',
    );
    const corrupt = Buffer.from(packed);
    corrupt.fill(0x41, 12, 24);
    expectProblem(await postRaw(corrupt, { 'content-encoding': 'gzip' }), 400, 'MALFORMED_JSON');
    expectProblem(await postRaw(Buffer.from('not gzip at all'), { 'content-encoding': 'gzip' }), 400, 'MALFORMED_JSON');
  });

  it('when the body uses another encoding, then 415; when it inflates past 100 KiB, then 413', async () => {
    expectProblem(
      await postRaw(Buffer.from(await login()), { 'content-encoding': 'compress' }),
      415,
      'UNSUPPORTED_MEDIA_TYPE',
    );
    const bomb = gzipSync(Buffer.from(`{"username":"${'a'.repeat(200 * 1024)}"}`));
    expect(bomb.length).toBeLessThan(2048);
    expectProblem(await postRaw(bomb, { 'content-encoding': 'gzip' }), 413, 'PAYLOAD_TOO_LARGE');
  });

  it('when the body is not valid UTF-8, then 400 MALFORMED_JSON instead of U+FFFD', async () => {
    const bytes = Buffer.concat([
      Buffer.from('{"username":"a'),
      Buffer.from([0xc0, 0xaf, 0xff]),
      Buffer.from('@example.com","password":"x"}'),
    ]);
    expectProblem(await postRaw(bytes, {}), 400, 'MALFORMED_JSON');
    expectProblem(await postRaw(gzipSync(bytes), { 'content-encoding': 'gzip' }), 400, 'MALFORMED_JSON');
  });

  it('when the body declares a charset other than UTF-8, then 415', async () => {
    expectProblem(
      await postRaw(Buffer.from(await login()), { 'content-type': 'application/json; charset=latin1' }),
      415,
      'UNSUPPORTED_MEDIA_TYPE',
    );
  });
});

describe('answers written before the app sees the request', () => {
  it('when the headers are too large, then 431 problem+json with an X-Request-Id', async () => {
    const answer = parseRaw(
      await rawExchange(`GET /api/v1/items HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`),
    );
    expect(answer.status).toBe(431);
    expect(answer.headers.get('content-type')).toBe('application/problem+json');
    expect(answer.problem).toMatchObject({
      status: 431,
      code: 'HEADERS_TOO_LARGE',
      request_id: answer.headers.get('x-request-id'),
    });
  });

  it('when the HTTP framing is broken, then 400 problem+json with an X-Request-Id', async () => {
    const chunked =
      'POST /api/v1/auth/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n';
    for (const request of [chunked, 'NOT A REQUEST\r\n\r\n']) {
      const answer = parseRaw(await rawExchange(request));
      expect(answer.status).toBe(400);
      expect(answer.problem).toMatchObject({
        status: 400,
        code: 'MALFORMED_REQUEST',
        request_id: answer.headers.get('x-request-id'),
      });
    }
  });

  it.concurrent('when headers trickle past 10 s or a body past 30 s, then the connection is closed with a 408', async () => {
    const url = new URL(app.url);
    /** Opens a connection, sends `head`, then one byte every 2 s; resolves with the seconds until the server closed it. */
    const trickle = async (head: string, drip: string) => {
      const socket = net.connect(Number(url.port), url.hostname);
      await once(socket, 'connect');
      const started = Date.now();
      let answer = '';
      socket.on('data', (d: Buffer) => (answer += d.toString()));
      socket.on('error', () => {});
      socket.write(head);
      const timer = setInterval(() => socket.writable && socket.write(drip), 2_000);
      await once(socket, 'close');
      clearInterval(timer);
      return { seconds: (Date.now() - started) / 1000, answer };
    };
    const [headers, body] = await Promise.all([
      trickle('GET /api/v1/items HTTP/1.1\r\nHost: x\r\n', 'X-A: b\r\n'),
      trickle(
        'POST /api/v1/auth/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{',
        ' ',
      ),
    ]);
    expect(headers.seconds).toBeGreaterThanOrEqual(9);
    expect(headers.seconds).toBeLessThan(14);
    expect(body.seconds).toBeGreaterThanOrEqual(29);
    expect(body.seconds).toBeLessThan(34);
    for (const { answer } of [headers, body])
      expect(parseRaw(answer).problem).toMatchObject({ status: 408, code: 'REQUEST_TIMEOUT' });
  }, 45_000);
});

describe('tokens', () => {
  it('when two Authorization headers arrive, then 401 TOKEN_INVALID, even if both hold the same valid token', async () => {
    const token = await loginAsAdmin(app);
    const head = (auth: string[]) =>
      `GET /graphql?query=%7BadminMe%7Bid%7D%7D HTTP/1.1\r\nHost: x\r\nAccept: application/json\r\nConnection: close\r\n${auth.map((a) => `Authorization: ${a}\r\n`).join('')}\r\n`;
    const twice = await rawExchange(head([`Bearer ${token}`, `Bearer ${token}`]));
    expect(twice).toContain('"code":"TOKEN_INVALID"');
    const once_ = await rawExchange(head([`Bearer ${token}`]));
    expect(once_).toContain('"adminMe":{"id":');

    const rest = await rawExchange(
      'POST /admin/api/items HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2\r\nConnection: close\r\n' +
        `Authorization: Bearer ${token}\r\nAuthorization: Bearer garbage\r\n\r\n{}`,
    );
    expect(rest).toMatch(/^HTTP\/1\.1 401/);
    expect(rest).toContain('"code":"TOKEN_INVALID"');
    expect(rest).toMatch(/WWW-Authenticate: Bearer realm="admin", error="invalid_token"/i);
  });

  it('when a well-signed token lives longer than this server issues, then 401 TOKEN_INVALID', async () => {
    const admin = await app.db.prisma.admin.findFirstOrThrow();
    const now = Math.floor(Date.now() / 1000);
    const tenYears = await signAdminToken({ sub: String(admin.id), iat: now, exp: now + 10 * 365 * 86400 });
    const res = await app.request('/admin/api/items', { method: 'POST', token: tenYears, body: {} });
    expectProblem(res, 401, 'TOKEN_INVALID');
    const exact = await signAdminToken({ sub: String(admin.id), iat: now, exp: now + app.config.jwt.adminTtl }, app);
    expectProblem(
      await app.request('/admin/api/items', { method: 'POST', token: exact, body: {} }),
      400,
      'VALIDATION_FAILED',
    );
  });
});
