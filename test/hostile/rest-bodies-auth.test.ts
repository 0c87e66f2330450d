/**
 * Generated hostile JSON bodies on the REST logins and the refresh (contract §1, §2, §3, §7.1, §7.2):
 * near-valid login bodies with one field replaced by something hostile, case and spacing variants of
 * the right credentials, wild bodies; WeChat codes that script hostile upstream identities; refresh
 * under tokens of every kind written every way. Every answer must be a contract answer (never a 5xx
 * except WeChat's 503s), every refusal must leave the database as it was, and where the contract
 * prescribes the answer (U+0000 in a username → 400, in a password → still only a wrong password) it
 * is checked.
 *
 * WeChat is a local fake (test/helpers/fake-wechat.ts) whose `js_code` scripts its reply, so a hostile
 * code also becomes a hostile upstream identity. TRUST_PROXY=1 lets some cases pick their client IP
 * with X-Forwarded-For: the login limits keep their defaults, but those cases get past the per-IP
 * budget and reach the password check and the session writes (argon2: ~30 ms each, so a few hundred).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { startFakeWeChat } from '../helpers/fake-wechat.ts';
import {
  currentTestName,
  Entries,
  exchange,
  fuzz,
  fuzzTimeout,
  jsonText,
  judgeHttp,
  problem,
  runs,
  type Table,
  WECHAT_503,
  type WireRequest,
} from '../helpers/hostile.ts';
import { TEST_ADMIN } from '../helpers/test-app.ts';
import {
  type AuthStyle,
  applyMutation,
  authOutcome,
  credentials,
  forwardedFor,
  isUnstorable,
  longString,
  type Mutation,
  mutationOf,
  oddStoredString,
  type Path,
  type TokenLabel,
  unstorableString,
  wildValue,
} from './arbitraries.ts';
import { FIXTURE_CUSTOMER, hostileSuite } from './fixtures.ts';

/** The whole count on every database: the login limits answer 429 only after enough attempts. */
const authRuns = (n: number) => runs(n, { everyDatabase: true });

const FILE = 'test/hostile/rest-bodies-auth.test.ts';

const suite = hostileSuite('rest-bodies-auth', { env: { TRUST_PROXY: '1' }, side: startFakeWeChat });
const { tally, ctx } = suite;

describe('hostile bodies on the REST logins and refresh (seeded fast-check)', {
  timeout: fuzzTimeout(authRuns(350)),
}, () => {
  const LOGIN_SHAPE = {
    paths: [[], ['username'], ['password']] as Path[],
    stringPaths: [['username'], ['password']] as Path[],
    objectPaths: [[]] as Path[],
  };

  /** A login body near the fixture account's, a valid one (case and spacing variants), or a wild one. */
  const loginBody = (username: string, password: string) =>
    fc.oneof(
      {
        arbitrary: fc
          .record({ mutation: mutationOf(LOGIN_SHAPE), wrongPassword: fc.boolean() })
          .map(({ mutation, wrongPassword }) => ({
            mutation,
            value: applyMutation({ username, password: wrongPassword ? 'wrong password' : password }, mutation),
          })),
        weight: 6,
      },
      {
        arbitrary: fc
          .constantFrom(username, username.toUpperCase(), `  ${username}\t`)
          .map((u) => ({ mutation: undefined as Mutation | undefined, value: { username: u, password } as unknown })),
        weight: 2,
      },
      {
        arbitrary: fc
          .record({
            username: fc.oneof(oddStoredString, longString).map((s) => `${s}@${s}`),
            password: fc.oneof(oddStoredString, unstorableString, longString),
          })
          .map((v) => ({ mutation: undefined as Mutation | undefined, value: v as unknown })),
        weight: 2,
      },
      { arbitrary: wildValue.map((value) => ({ mutation: undefined as Mutation | undefined, value })), weight: 1 },
    );

  /**
   * §7.1: a username with U+0000 is refused; a password may hold anything (it is only hashed). The
   * contract does not say whether the per-IP limit counts invalid requests, so 429 is allowed too.
   */
  function expectedForLogin(m: Mutation | undefined): string[] | undefined {
    if (m?.op !== 'unstorable') return undefined;
    return m.path[0] === 'username'
      ? ['400 VALIDATION_FAILED', '429 RATE_LIMITED']
      : ['401 INVALID_CREDENTIALS', '429 RATE_LIMITED'];
  }

  for (const login of [
    {
      route: 'POST /api/v1/auth/login',
      path: '/api/v1/auth/login',
      username: FIXTURE_CUSTOMER.username,
      password: FIXTURE_CUSTOMER.password,
      n: 200,
    },
    {
      route: 'POST /admin/api/auth/login',
      path: '/admin/api/auth/login',
      username: TEST_ADMIN.username,
      password: TEST_ADMIN.password,
      n: 150,
    },
  ]) {
    it(`when ${login.route} gets hostile usernames, passwords and bodies, then every answer follows the contract and refusals change nothing`, async () => {
      const arb = fc.record({
        body: loginBody(login.username, login.password),
        xff: fc.option(forwardedFor, { nil: undefined, freq: 2 }),
      });
      await fuzz(currentTestName(), FILE, arb, authRuns(login.n), async (c) => {
        const req: WireRequest = {
          method: 'POST',
          path: login.path,
          headers: suite.fx.jsonHeaders(undefined, c.xff === undefined ? [] : [['x-forwarded-for', c.xff]]),
          body: jsonText(c.body.value),
        };
        await exchange(ctx(), login.route, req, (res) => judgeHttp(res), {
          expected: expectedForLogin(c.body.mutation),
        });
      });
      const missing = tally.requireSpread(login.route, {
        total: authRuns(login.n),
        prescribed: authRuns(10),
        outcomes: [
          [/^200$/, 1],
          [/^400 VALIDATION_FAILED$/, authRuns(20)],
          [/^401 INVALID_CREDENTIALS$/, authRuns(10)],
          [/^429 RATE_LIMITED$/, 1],
        ],
      });
      expect(missing, tally.summary()).toEqual([]);
    });
  }

  // -------------------------------------------------------------------------------------------
  /** Text that may end up as an openid / unionid in the fake WeChat's reply. */
  const identityPart = fc.oneof(
    { arbitrary: fc.stringMatching(/^[A-Za-z0-9_-]{1,28}$/), weight: 4 },
    {
      arbitrary: fc.constantFrom(
        '',
        ' ',
        '\u0001',
        'a\u0007b',
        '\u007F',
        '\u0085',
        'line\nbreak',
        'tab\there',
        '跑鞋',
        '😀',
        'x'.repeat(120),
      ),
      weight: 3,
    },
    { arbitrary: oddStoredString.filter((s) => !s.includes(':')), weight: 2 },
    { arbitrary: unstorableString, weight: 1 },
  );
  const wxCode = fc.oneof(
    { arbitrary: identityPart.map((a) => ({ code: `ok:${a}` as unknown, openid: a })), weight: 5 },
    {
      arbitrary: fc
        .tuple(identityPart, identityPart)
        .map(([a, b]) => ({ code: `union:${a}:${b}` as unknown, openid: a })),
      weight: 2,
    },
    {
      arbitrary: fc
        .constantFrom(
          'err:40029',
          'err:40163',
          'err:40226',
          'err:45011',
          'err:-1',
          'err:40013',
          'err:0',
          'err:x',
          'not-json',
          'no-openid',
          'http-500',
          'http-404',
          'http-200',
          'busy-once:b1:x',
        )
        .map((code) => ({ code: code as unknown, openid: undefined })),
      weight: 2,
    },
    // A code is any string to WeChat: anything but `slow…`, which the fake answers after 8 s.
    {
      arbitrary: fc
        .oneof(wildValue, unstorableString, longString)
        .filter((v) => !(typeof v === 'string' && v.startsWith('slow')))
        .map((code) => ({ code, openid: undefined })),
      weight: 2,
    },
  );

  it('when POST /api/v1/auth/wx-login gets hostile codes and WeChat replies with hostile identities, then every answer follows the contract and nothing is created on refusal', async () => {
    const arb = fc.record({
      wx: wxCode,
      extraKeys: fc.boolean(),
      xff: fc.option(forwardedFor, { nil: undefined, freq: 3 }),
    });
    await fuzz(currentTestName(), FILE, arb, authRuns(350), async (c) => {
      const body = c.extraKeys
        ? new Entries([
            ['code', c.wx.code],
            ['__proto__', { openid: 'x' }],
            ['code ', 'y'],
          ])
        : { code: c.wx.code };
      const req: WireRequest = {
        method: 'POST',
        path: '/api/v1/auth/wx-login',
        headers: suite.fx.jsonHeaders(undefined, c.xff === undefined ? [] : [['x-forwarded-for', c.xff]]),
        body: jsonText(body),
      };
      await exchange(ctx(), 'POST /api/v1/auth/wx-login', req, (res) => judgeHttp(res, { allow503: WECHAT_503 }), {
        expected: expectedForWx(c.wx),
      });
    });
    const missing = tally.requireSpread('POST /api/v1/auth/wx-login', {
      total: authRuns(350),
      prescribed: authRuns(50),
      outcomes: [
        [/^200$/, authRuns(30)],
        [/^400 VALIDATION_FAILED$/, authRuns(20)],
        [/^401 WX_CODE_INVALID$/, 1],
        [/^503 UPSTREAM_UNAVAILABLE$/, 1],
      ],
    });
    expect(missing, tally.summary()).toEqual([]);
  });

  /**
   * §3.2 and §7.1: a code that is not 1..128 characters of storable text is 400 (or 429: whether the
   * per-IP limit counts it is not said); an identity that is not short printable text is 503.
   */
  function expectedForWx(wx: { code: unknown; openid?: string }): string[] | undefined {
    const invalid = ['400 VALIDATION_FAILED', '429 RATE_LIMITED'];
    if (typeof wx.code !== 'string' || wx.code.length === 0 || [...wx.code].length > 128) return invalid;
    if (isUnstorable(wx.code)) return invalid;
    if (wx.code.length > 128) return undefined; // ≤ 128 code points but more UTF-16 units: "chars" is ambiguous
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the oracle looks for exactly these control characters
    if (wx.openid !== undefined && (wx.openid === '' || /[\u0000-\u001F\u007F-\u009F]/.test(wx.openid))) {
      return ['503 UPSTREAM_UNAVAILABLE', '429 RATE_LIMITED'];
    }
    if (wx.code === 'err:40029' || wx.code === 'err:40163') return ['401 WX_CODE_INVALID', '429 RATE_LIMITED'];
    return undefined;
  }

  // -------------------------------------------------------------------------------------------
  it('when POST /api/v1/auth/refresh gets tokens of every kind, written every way, with or without a body, then every answer follows the contract', async () => {
    const arb = fc.record({
      auth: credentials(['customer']),
      body: fc.option(fc.oneof(fc.constant<unknown>({}), wildValue), { nil: undefined, freq: 2 }),
    });
    await fuzz(currentTestName(), FILE, arb, authRuns(250), async (c) => {
      const headers = suite.fx.authLines(c.auth);
      if (c.body !== undefined) headers.push(['content-type', 'application/json']);
      const req: WireRequest = {
        method: 'POST',
        path: '/api/v1/auth/refresh',
        headers,
        body: c.body === undefined ? undefined : jsonText(c.body),
      };
      const { res, verdict } = await exchange(ctx(), 'POST /api/v1/auth/refresh', req, (r) => judgeHttp(r), {
        expected: expectedForRefresh(c.auth),
        // §3.3: replaying a retired token revokes its session — a refusal that writes, by design.
        exemptWhen: (v): Table[] => (v.code === 'TOKEN_REVOKED' ? ['customer_sessions'] : []),
      });
      if (verdict.outcome === '200' && res?.json?.access_token) suite.fx.refreshed(res.json.access_token);
    });
    const missing = tally.requireSpread('POST /api/v1/auth/refresh', {
      total: authRuns(250),
      prescribed: authRuns(50),
      outcomes: [
        [/^200$/, authRuns(30)],
        [/^401 TOKEN_INVALID$/, authRuns(20)],
        [/^401 UNAUTHENTICATED$/, 1],
      ],
    });
    expect(missing, tally.summary()).toEqual([]);
  });

  function expectedForRefresh(a: { label: TokenLabel; style: AuthStyle }): string[] | undefined {
    const outcome = authOutcome('customer', a.label, a.style);
    return outcome === undefined || outcome === 'ok' ? undefined : [problem(outcome)];
  }
});
