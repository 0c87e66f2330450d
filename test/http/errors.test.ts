import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(() => app.close());

function expectProblem(res: { status: number; headers: Headers; body: any }, status: number, code: string) {
  expect(res.status).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(res.body).toMatchObject({ type: 'about:blank', status, code });
  expect(typeof res.body.title).toBe('string');
  expect(typeof res.body.detail).toBe('string');
  expect(res.body.request_id).toBe(res.headers.get('x-request-id'));
}

describe('the shared error layer', () => {
  it('when the path is unknown, then 404 NOT_FOUND as problem+json', async () => {
    expectProblem(await app.request('/api/v1/nothing-here'), 404, 'NOT_FOUND');
  });

  it('when a known path is called with another method, then 405 with Allow', async () => {
    const res = await app.request('/api/v1/categories', { method: 'DELETE' });
    expectProblem(res, 405, 'METHOD_NOT_ALLOWED');
    expect(res.headers.get('allow')).toBe('GET, HEAD');
    const gql = await app.request('/graphql', { method: 'PUT' });
    expectProblem(gql, 405, 'METHOD_NOT_ALLOWED');
    expect(gql.headers.get('allow')).toBe('GET, HEAD, POST');
  });

  it('when a body is not declared as JSON, then 415', async () => {
    const res = await app.request('/graphql', {
      rawBody: '{"query":"{ categories { id } }"}',
      contentType: 'text/plain',
    });
    expectProblem(res, 415, 'UNSUPPORTED_MEDIA_TYPE');
  });

  it('when a JSON body is malformed, then 400 MALFORMED_JSON', async () => {
    const res = await app.request('/graphql', {
      rawBody: '{"query": ',
      contentType: 'application/json; charset=utf-8',
    });
    expectProblem(res, 400, 'MALFORMED_JSON');
  });

  it.each([
    ['{}', 200, 'Must provide query string.'],
    ['[]', 400, 'Batching is not supported.'],
    ['42', 400, 'POST body is expected to be object but received number'],
    ['null', 400, 'POST body is expected to be object but received null'],
    ['"{}"', 400, 'POST body is expected to be object but received string'],
  ] as const)(
    'when a JSON body is %s, not a GraphQL request, then %i VALIDATION_FAILED saying why (never no answer)',
    async (body, status, message) => {
      const res = await app.request('/graphql', { rawBody: body, contentType: 'application/json' });
      expect(res.status).toBe(status);
      expect(res.body).toEqual({ errors: [{ message, extensions: { code: 'VALIDATION_FAILED' } }] });
    },
  );

  it('when a body is over 100 KiB, then 413', async () => {
    const big = JSON.stringify({ query: `{ categories { id } }`, pad: 'x'.repeat(101 * 1024) });
    expectProblem(
      await app.request('/graphql', { rawBody: big, contentType: 'application/json' }),
      413,
      'PAYLOAD_TOO_LARGE',
    );
  });

  it('when a sane X-Request-Id is sent, then it is echoed; an unsafe one is replaced', async () => {
    const echoed = await app.request('/healthz', { headers: { 'x-request-id': 'abc-123.DEF' } });
    expect(echoed.headers.get('x-request-id')).toBe('abc-123.DEF');
    const replaced = await app.request('/healthz', { headers: { 'x-request-id': 'bad id\twith spaces' } });
    expect(replaced.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    const generated = await app.request('/api/v1/nothing-here');
    expect(generated.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('when GraphQL gets an unknown field or a syntax error, then errors carry VALIDATION_FAILED with suggestions (not production)', async () => {
    const unknown = await app.graphql('{ categories { id nme } }');
    expect(unknown.body.errors[0].extensions.code).toBe('VALIDATION_FAILED');
    expect(unknown.body.errors[0].message).toBe('Cannot query field "nme" on type "Category". Did you mean "name"?');
    const syntax = await app.graphql('{ categories { id ');
    expect(syntax.body.errors[0].extensions.code).toBe('VALIDATION_FAILED');
  });

  it('when a GraphQL document does not parse, then VALIDATION_FAILED in development and production, never INTERNAL', async () => {
    const broken = ['{', '}', '', '   ', '# only a comment', '{ categories(name: "unterminated) { id } }', '"\ud800"'];
    const prod = await startTestApp({ NODE_ENV: 'production' });
    try {
      for (const target of [app, prod]) {
        for (const query of broken) {
          const res = await target.request('/graphql', {
            rawBody: `{"query":${JSON.stringify(query)}}`,
            contentType: 'application/json',
          });
          const code = res.body.errors?.[0]?.extensions?.code ?? res.body.code;
          expect({ query, code }).toEqual({ query, code: 'VALIDATION_FAILED' });
        }
      }
    } finally {
      await prod.close();
    }
  });

  it('when in production, then an unknown GraphQL field gets no suggestion (they would spell out the schema)', async () => {
    const prod = await startTestApp({ NODE_ENV: 'production' });
    try {
      const unknown = await prod.graphql('{ categories { id nme } }');
      expect(unknown.body.errors[0].extensions.code).toBe('VALIDATION_FAILED');
      expect(unknown.body.errors[0].message).not.toMatch(/Did you mean|"name"/);
    } finally {
      await prod.close();
    }
  });

  it('when a GraphQL document is too deep or has too many aliases, then it is refused before execution', async () => {
    const aliases = Array.from({ length: 30 }, (_, i) => `a${i}: categories { id }`).join(' ');
    const res = await app.graphql(`{ ${aliases} }`);
    expect(res.body.data).toBeUndefined();
    expect(res.body.errors[0].extensions.code).toBe('VALIDATION_FAILED');
  });
});

describe('probes', () => {
  it('when the process is up and the database answers, then /healthz and /readyz are 200', async () => {
    expect((await app.request('/healthz')).body).toEqual({ status: 'ok' });
    expect((await app.request('/readyz')).body).toEqual({ status: 'ready' });
  });
});
