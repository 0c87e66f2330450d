/**
 * POST /api/v1/auth/refresh (contract §3.3): rotation, the 30 s safe retry, replay revocation, the
 * refresh grace and the absolute session limit. Where the contract's fixed 30 s (clock skew, retry
 * window) would make a test wait, the clock is moved instead: the app runs in this process, so
 * faking `Date` moves the server's clock too (timers stay real).
 */
import { decodeJwt } from 'jose';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { expectProblem, gqlCode, loginAsAdmin, loginAsCustomer, makeCustomer, refresh } from '../helpers/accounts.ts';
import { expectDocumentedResponse } from '../helpers/openapi.ts';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';

const TTL = 600;
const GRACE = 3600;

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp({
    LOGIN_IP_PER_MINUTE: '1000',
    CUSTOMER_TOKEN_TTL: String(TTL),
    REFRESH_GRACE: String(GRACE),
  });
});
afterAll(() => app.close());
afterEach(() => {
  vi.useRealTimers();
});

/** Freezes the clock now; `travel(s)` then moves it forward by `s` seconds. */
function freezeClock() {
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(Date.now());
  return (seconds: number) => vi.setSystemTime(Date.now() + seconds * 1000);
}

async function newSessionToken(): Promise<string> {
  const customer = await makeCustomer(app);
  return loginAsCustomer(app, customer.username!);
}

const me = (token: string) => app.graphql('{ me { id } }', {}, { token });
const sessionOf = (token: string) =>
  app.db.prisma.customerSession.findUniqueOrThrow({ where: { id: decodeJwt(token).sid as string } });

describe('POST /api/v1/auth/refresh', () => {
  it('when the newest token is refreshed, then 200 with a new token of the same session and the old one is retired', async () => {
    const first = await newSessionToken();
    const res = await refresh(app, first);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ access_token: expect.any(String), token_type: 'Bearer', expires_in: TTL });
    expect(res.headers.get('cache-control')).toBe('no-store');
    await expectDocumentedResponse(app, 'POST', '/api/v1/auth/refresh', res);

    const [a, b] = [decodeJwt(first), decodeJwt(res.body.access_token)];
    expect(b.sid).toBe(a.sid);
    expect(b.sub).toBe(a.sub);
    expect(b.jti).not.toBe(a.jti);
    expect(b.exp! - b.iat!).toBe(TTL);
    expect(await sessionOf(first)).toMatchObject({ currentJti: b.jti, previousJti: a.jti, revokedAt: null });
    expect((await me(res.body.access_token)).body.data.me.id).toBe(Number(a.sub));
  });

  it('when the retired token is presented again within 30 s, then the very same successor comes back', async () => {
    const travel = freezeClock();
    const first = await newSessionToken();
    const successor = (await refresh(app, first)).body.access_token;
    travel(25);
    const retry = await refresh(app, first);
    expect(retry.status).toBe(200);
    expect(retry.body.access_token).toBe(successor);
    // The retired token may still finish what was in flight; the successor is unaffected.
    expect((await me(first)).body.data.me).not.toBeNull();
    expect((await me(successor)).body.data.me).not.toBeNull();
  });

  it('when the retired token is presented after 30 s, then 401 TOKEN_REVOKED and the whole session is revoked', async () => {
    const travel = freezeClock();
    const first = await newSessionToken();
    const successor = (await refresh(app, first)).body.access_token;
    travel(31);
    const replay = await refresh(app, first);
    expectProblem(replay, 401, 'TOKEN_REVOKED');
    expect(replay.headers.get('www-authenticate')).toBe('Bearer realm="customer", error="invalid_token"');
    expect((await sessionOf(first)).revokedAt).not.toBeNull();
    // Its newest token stops working too, for reads and for refresh.
    expect(gqlCode(await me(successor))).toBe('TOKEN_REVOKED');
    expectProblem(await refresh(app, successor), 401, 'TOKEN_REVOKED');
  });

  it('when a token two rotations old is presented, then it is a replay even within 30 s', async () => {
    const first = await newSessionToken();
    const second = (await refresh(app, first)).body.access_token;
    const third = (await refresh(app, second)).body.access_token;
    expectProblem(await refresh(app, first), 401, 'TOKEN_REVOKED');
    expect(gqlCode(await me(third))).toBe('TOKEN_REVOKED');
  });

  it('when a retired token is used for an ordinary request after the retry window, then 401 TOKEN_REVOKED but the session lives on', async () => {
    const travel = freezeClock();
    const first = await newSessionToken();
    const successor = (await refresh(app, first)).body.access_token;
    travel(31);
    expect(gqlCode(await me(first))).toBe('TOKEN_REVOKED');
    expect((await me(successor)).body.data.me).not.toBeNull();
  });

  it('when one token is refreshed by 12 parallel requests, then all get the same successor and the session has one live token', async () => {
    const first = await newSessionToken();
    const answers = await Promise.all(Array.from({ length: 12 }, () => refresh(app, first)));
    expect(answers.map((r) => r.status)).toEqual(Array(12).fill(200));
    const tokens = new Set(answers.map((r) => r.body.access_token));
    expect(tokens.size).toBe(1);
    const [successor] = tokens;
    expect(await sessionOf(first)).toMatchObject({
      currentJti: decodeJwt(successor).jti,
      previousJti: decodeJwt(first).jti,
      revokedAt: null,
    });
    // The chain goes on from that one successor.
    expect((await refresh(app, successor)).status).toBe(200);
  });

  it('when the token expired less than the refresh grace ago, then it can be refreshed but not used; past the grace, 401 TOKEN_EXPIRED', async () => {
    const travel = freezeClock();
    const early = await newSessionToken();
    const late = await newSessionToken();
    travel(TTL + 60); // both expired (beyond the 30 s skew)
    expect(gqlCode(await me(early))).toBe('TOKEN_EXPIRED');
    const refreshed = await refresh(app, early);
    expect(refreshed.status).toBe(200);
    expect((await me(refreshed.body.access_token)).body.data.me).not.toBeNull();

    travel(GRACE + 31 - 60); // `late` is now expired by the grace plus the skew
    const res = await refresh(app, late);
    expectProblem(res, 401, 'TOKEN_EXPIRED');
    expect(res.body.detail).toMatch(/expired at \d{4}-\d\d-\d\dT/);
  });

  it('when the session is older than SESSION_MAX_AGE, then refresh and use both answer 401 TOKEN_EXPIRED, however often it was refreshed', async () => {
    const short = await startTestApp({
      LOGIN_IP_PER_MINUTE: '1000',
      SESSION_MAX_AGE: '900',
      CUSTOMER_TOKEN_TTL: '600',
    });
    try {
      const travel = freezeClock();
      const customer = await makeCustomer(short);
      let token = await loginAsCustomer(short, customer.username!);
      for (let i = 0; i < 2; i++) {
        travel(400); // each refresh comes before the token expires
        const next = await refresh(short, token);
        expect(next.status).toBe(200);
        token = next.body.access_token;
      }
      travel(101); // 901 s after login; the newest token itself is only 101 s old
      const res = await refresh(short, token);
      expectProblem(res, 401, 'TOKEN_EXPIRED');
      expect(res.body.detail).toMatch(/maximum age/);
      expect(gqlCode(await short.graphql('{ me { id } }', {}, { token }))).toBe('TOKEN_EXPIRED');
      // Logging in again opens a new session.
      const again = await loginAsCustomer(short, customer.username!);
      expect((await refresh(short, again)).status).toBe(200);
    } finally {
      await short.close();
    }
  });

  it('when there is no Authorization header, then 401 UNAUTHENTICATED; an admin token is 401 TOKEN_INVALID', async () => {
    const none = await refresh(app);
    expectProblem(none, 401, 'UNAUTHENTICATED');
    expect(none.headers.get('www-authenticate')).toBe('Bearer realm="customer"');
    await expectDocumentedResponse(app, 'POST', '/api/v1/auth/refresh', none);
    const admin = await refresh(app, await loginAsAdmin(app));
    expectProblem(admin, 401, 'TOKEN_INVALID');
  });

  it('when a body is sent along, then it is ignored', async () => {
    const first = await newSessionToken();
    const res = await app.request('/api/v1/auth/refresh', { token: first, body: { access_token: 'x', sid: 'y' } });
    expect(res.status).toBe(200);
  });
});

describe('GraphQL refreshToken', () => {
  it('when called with the token in the Authorization header, then it rotates exactly like the REST route', async () => {
    const first = await newSessionToken();
    const res = await app.graphql(
      'mutation { refreshToken { accessToken tokenType expiresIn } }',
      {},
      { token: first },
    );
    expect(res.body.data.refreshToken).toEqual({
      accessToken: expect.any(String),
      tokenType: 'Bearer',
      expiresIn: TTL,
    });
    // A retry through REST within the window gets the same successor: one implementation.
    expect((await refresh(app, first)).body.access_token).toBe(res.body.data.refreshToken.accessToken);
    const none = await app.graphql('mutation { refreshToken { accessToken } }');
    expect(gqlCode(none)).toBe('UNAUTHENTICATED');
  });
});
