/**
 * fast-check generators of hostile input shared by the suites in this folder: strings the database
 * cannot store, odd keys, numbers at the edges of JSON and of int32, wild JSON values, percent-encoded
 * query text, path ids, Authorization headers — and "near-valid" bodies (a valid body with one part
 * replaced), which get past the first checks and so reach deeper code than wild ones.
 */
import fc from 'fast-check';
import { Entries, RawJson } from '../helpers/hostile.ts';

// ---------------------------------------------------------------------------------------------
// Strings

/** Strings PostgreSQL cannot store or UTF-8 cannot carry (§7.1: 400 VALIDATION_FAILED on any such field). */
export const unstorableString: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    '\u0000',
    'a\u0000b',
    '\uD800',
    '\uDFFF',
    'x\uDC00y',
    'ok\uDBFF',
    '\uDFFF\uD800',
    'trail\u0000boot@example.com',
  ),
  fc
    .tuple(
      fc.string({ maxLength: 8 }),
      fc.constantFrom('\u0000', '\uD800', '\uDBFF', '\uDC00', '\uDFFF'),
      fc.string({ maxLength: 8 }),
    )
    .map(([a, bad, b]) => a + bad + b),
);

export const isUnstorable = (s: string) => s.includes('\u0000') || !s.isWellFormed();

/** True when some string or key anywhere in `value` satisfies `bad`. */
function deepSome(value: unknown, bad: (s: string) => boolean): boolean {
  if (typeof value === 'string') return bad(value);
  if (value instanceof Entries) return value.entries.some(([k, v]) => bad(k) || deepSome(v, bad));
  if (Array.isArray(value)) return value.some((v) => deepSome(v, bad));
  if (value !== null && typeof value === 'object' && !(value instanceof RawJson)) {
    return Object.entries(value).some(([k, v]) => bad(k) || deepSome(v, bad));
  }
  return false;
}

/** True when a lone surrogate appears anywhere in `value` (strings, keys, nested values). */
export const hasLoneSurrogate = (value: unknown) => deepSome(value, (s) => !s.isWellFormed());

/** True when U+0000 or a lone surrogate appears anywhere in `value`. */
export const hasUnstorable = (value: unknown) => deepSome(value, isUnstorable);

/** Strings that are storable but odd: Unicode edge cases, lookalike numbers, SQL and LIKE metacharacters. */
export const oddStoredString: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    '',
    ' ',
    '\t\n\r',
    '跑鞋',
    '😀',
    '\u{1F600}\u{1F3FD}',
    'e\u0301',
    'İ', // toLowerCase makes it two code points
    'ß',
    '\u200B',
    '\uFEFF',
    '\uFFFE',
    '\uFFFD',
    '\u202Eevil',
    '\u0001\u001F\u007F',
    '\u0085\u2028\u2029',
    'NaN',
    'Infinity',
    '-0',
    '1e308',
    '0x10',
    ' 1 ',
    '１２', // fullwidth digits
    '١٢', // Arabic-Indic digits
    "'; DROP TABLE items; --",
    '%',
    '_',
    '\\',
    '%_\\',
    '$1',
    '{}',
    '[]',
    'null',
    'true',
    '__proto__',
    '<script>alert(1)</script>',
    '../../etc/passwd',
    'a@b',
    'a@b@c',
    '@',
  ),
  fc.string({ unit: 'binary', maxLength: 12 }),
  fc.string({ unit: 'binary-ascii', maxLength: 12 }),
  fc.string({ unit: 'grapheme', maxLength: 8 }),
);

/** Long strings around the contract's limits (64, 100, 128, 200, 254, 255, 1024, 2048 …). */
export const longString: fc.Arbitrary<string> = fc
  .tuple(
    fc.constantFrom(64, 65, 100, 101, 128, 129, 200, 201, 254, 255, 256, 1024, 1025, 2048, 2049, 5000, 40_000),
    fc.constantFrom('x', 'é', '跑', '😀'),
  )
  .map(([n, c]) => c.repeat(c.length === 2 ? n / 2 : n));

export const anyString: fc.Arbitrary<string> = fc.oneof(
  { arbitrary: oddStoredString, weight: 4 },
  { arbitrary: unstorableString, weight: 3 },
  { arbitrary: longString, weight: 1 },
);

// ---------------------------------------------------------------------------------------------
// Numbers

/** Numbers at the edges: float limits, int32 and 2^53, -0, fractions, money precision. */
export const edgeNumber: fc.Arbitrary<number> = fc.oneof(
  fc.constantFrom(
    0,
    -0,
    1,
    -1,
    1.5,
    0.1 + 0.2,
    1e-7,
    5e-324,
    19.999,
    99999999.99,
    100000000,
    2 ** 31 - 1,
    2 ** 31,
    -(2 ** 31),
    2 ** 32,
    2 ** 53,
    2 ** 53 + 2,
    -(2 ** 53),
    Number.MAX_SAFE_INTEGER,
    1e21,
    1e308,
    -1e308,
    Number.MAX_VALUE,
  ),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
);

/** JSON number literals JavaScript would not write: overflow, huge integers, odd exponents. */
export const rawNumber: fc.Arbitrary<RawJson> = fc
  .constantFrom(
    '1e400',
    '-1e400',
    '-0',
    '-0.0',
    '1E+2',
    '0.1e1',
    '123456789012345678901234567890',
    '9007199254740993',
    '1.0',
    '2147483648',
    '1e-400',
    '0e0',
  )
  .map((t) => new RawJson(t));

// ---------------------------------------------------------------------------------------------
// Keys and wild JSON values

/** Object keys that trip up naive code: prototype names, empty, U+0000, surrogates, look-alikes. */
export const oddKey: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    '__proto__',
    'constructor',
    'prototype',
    'toString',
    'hasOwnProperty',
    'valueOf',
    '',
    ' ',
    '\u0000',
    'a\u0000b',
    '\uD800',
    '\uDFFF',
    '$where',
    '0',
    '-1',
    'x'.repeat(300),
    '跑鞋',
    'name ',
    'NAME',
  ),
  fc.string({ unit: 'binary', maxLength: 6 }),
);

/** Any JSON scalar, hostile ones favoured. */
export const wildScalar: fc.Arbitrary<unknown> = fc.oneof(
  { arbitrary: fc.constant(null), weight: 1 },
  { arbitrary: fc.boolean(), weight: 1 },
  { arbitrary: edgeNumber, weight: 3 },
  { arbitrary: rawNumber, weight: 1 },
  { arbitrary: anyString, weight: 4 },
);

/** A wild JSON value: scalars, arrays and objects with odd keys, nested a few levels. */
export const wildValue: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', maxDepth: 3 },
    { arbitrary: wildScalar, weight: 5 },
    { arbitrary: fc.array(tie('value'), { maxLength: 4 }), weight: 1 },
    {
      arbitrary: fc
        .array(fc.tuple(fc.oneof(oddKey, fc.constantFrom('name', 'price', 'url', 'code', 'username')), tie('value')), {
          maxLength: 4,
        })
        .map((e) => new Entries(e)),
      weight: 1,
    },
  ),
})).value;

/** A deeply nested array or object (stack-depth attacks on recursive walkers). */
export const deepValue: fc.Arbitrary<RawJson> = fc
  .tuple(fc.constantFrom(100, 1000, 5000), fc.constantFrom('[', '{"a":'))
  .map(([depth, open]) => new RawJson(`${open.repeat(depth)}1${(open === '[' ? ']' : '}').repeat(depth)}`));

// ---------------------------------------------------------------------------------------------
// Mutating a valid body at one place

export type Path = ReadonlyArray<string | number>;

/** What was done to a valid body, shown in counterexamples and used by the oracles. */
export interface Mutation {
  path: Path;
  op: 'replace' | 'unstorable' | 'delete' | 'add-key' | 'duplicate-key' | 'wrap';
  value?: unknown;
  key?: string;
}

const clone = <T>(v: T): T => structuredClone(v);

/**
 * Applies `m` to a copy of `body`. Objects containing an odd key or a duplicate become `Entries`, so
 * `__proto__` stays an ordinary own key in the JSON text.
 */
export function applyMutation(body: Record<string, unknown>, m: Mutation): unknown {
  if (m.path.length === 0 && (m.op === 'replace' || m.op === 'unstorable')) return m.value;
  const root = clone(body) as any;
  const parentPath = m.op === 'add-key' || m.op === 'duplicate-key' ? m.path : m.path.slice(0, -1);
  // The empty path (the body itself) has no key in a parent: there `wrap` and `delete` act on a
  // property named "undefined", as `parent[undefined]` always did (`delete` then changes nothing).
  const last = m.path[m.path.length - 1] ?? 'undefined';
  let parent = root;
  for (const seg of parentPath) {
    if (parent === null || typeof parent !== 'object') return root;
    parent = parent[seg];
  }
  if (parent === null || typeof parent !== 'object') return root;
  switch (m.op) {
    case 'replace':
    case 'unstorable':
      parent[last] = m.value;
      return root;
    case 'wrap':
      parent[last] = [parent[last]];
      return root;
    case 'delete':
      if (Array.isArray(parent)) parent.splice(Number(last), 1);
      else delete parent[last];
      return root;
    case 'add-key':
    case 'duplicate-key': {
      const entries: Array<[string, unknown]> = Object.entries(parent);
      if (m.op === 'add-key') entries.push([m.key!, m.value]);
      else if (entries.length) entries.push([entries[0]![0], m.value]);
      const replaced = new Entries(entries);
      if (parentPath.length === 0) return replaced;
      let grand = root;
      for (const seg of parentPath.slice(0, -1)) grand = grand[seg];
      grand[parentPath[parentPath.length - 1]!] = replaced;
      return root;
    }
  }
}

/**
 * Mutations of a valid body: `paths` are its fields (any depth), `stringPaths` those the contract
 * makes strings (an unstorable string there must be refused), `objectPaths` where a key can be added.
 */
export function mutationOf(shape: { paths: Path[]; stringPaths: Path[]; objectPaths: Path[] }): fc.Arbitrary<Mutation> {
  return fc.oneof(
    {
      arbitrary: fc.record({
        path: fc.constantFrom(...shape.paths),
        op: fc.constant('replace' as const),
        value: wildValue,
      }),
      weight: 4,
    },
    {
      arbitrary: fc.record({
        path: fc.constantFrom(...shape.stringPaths),
        op: fc.constant('unstorable' as const),
        value: unstorableString,
      }),
      weight: 3,
    },
    { arbitrary: fc.record({ path: fc.constantFrom(...shape.paths), op: fc.constant('delete' as const) }), weight: 1 },
    { arbitrary: fc.record({ path: fc.constantFrom(...shape.paths), op: fc.constant('wrap' as const) }), weight: 1 },
    {
      arbitrary: fc.record({
        path: fc.constantFrom(...shape.objectPaths),
        op: fc.constant('add-key' as const),
        key: oddKey,
        value: wildValue,
      }),
      weight: 2,
    },
    {
      arbitrary: fc.record({
        path: fc.constantFrom(...shape.objectPaths),
        op: fc.constant('duplicate-key' as const),
        value: wildValue,
      }),
      weight: 1,
    },
  );
}

// ---------------------------------------------------------------------------------------------
// Query strings and path segments

/** Percent-encodes every byte of the UTF-8 form of `s` that is not unreserved. */
export const pctEncode = (s: string) =>
  [...Buffer.from(s, 'utf8')]
    .map((b) =>
      /[A-Za-z0-9\-._~]/.test(String.fromCharCode(b))
        ? String.fromCharCode(b)
        : `%${b.toString(16).toUpperCase().padStart(2, '0')}`,
    )
    .join('');

/** Percent-escapes that decode to nothing sane: NUL, invalid escapes, invalid or overlong UTF-8, surrogates. */
export const hostileEscape: fc.Arbitrary<string> = fc.constantFrom(
  '%00',
  'a%00b',
  '%zz',
  '%',
  '%2',
  '%%',
  '%C0%AF',
  '%C0%80',
  '%FF',
  '%FE%FF',
  '%ED%A0%80', // an encoded lone surrogate (invalid UTF-8)
  '%F4%90%80%80', // beyond U+10FFFF
  '%E2%82',
  '%C3',
  '%u0000',
  '%2500',
  '%0A%0D',
  '+%2B+',
  '%EF%BF%BF',
  '%F0%9F%98%80',
);

/** One query-string value, already encoded. */
export const queryValue: fc.Arbitrary<string> = fc.oneof(
  { arbitrary: fc.integer({ min: -5, max: 120 }).map(String), weight: 4 },
  {
    arbitrary: fc.constantFrom(
      '',
      '0',
      '-0',
      '+1',
      '1.5',
      '1e3',
      '0x10',
      '99999999999',
      '2147483647',
      '2147483648',
      '9007199254740993',
      '1%20',
      '%201',
      'NaN',
      'Infinity',
      'null',
      'true',
      '[]',
      '%E4%BA%8C',
    ),
    weight: 3,
  },
  { arbitrary: hostileEscape, weight: 3 },
  { arbitrary: anyString.map(pctEncode), weight: 2 },
  { arbitrary: edgeNumber.map((n) => pctEncode(String(n))), weight: 1 },
);

/** Names a query string may carry: the real ones, look-alikes, bracket syntax, and junk. */
export const queryName = (real: readonly string[]): fc.Arbitrary<string> =>
  fc.oneof(
    { arbitrary: fc.constantFrom(...real), weight: 6 },
    { arbitrary: fc.constantFrom(...real).map((n) => `${n}[]`), weight: 1 },
    { arbitrary: fc.constantFrom(...real).map((n) => `${n}[a]`), weight: 1 },
    {
      arbitrary: fc.constantFrom(
        'categoryId',
        'PAGE',
        '__proto__',
        'constructor',
        '',
        '%00',
        '%zz',
        'a%5Bb%5D',
        'x'.repeat(500),
      ),
      weight: 2,
    },
  );

/** A whole query string (with `?`) of 0..6 parameters, names possibly repeated. */
export const queryString = (real: readonly string[]): fc.Arbitrary<string> =>
  fc
    .array(
      fc.oneof(
        fc.tuple(queryName(real), queryValue).map(([n, v]) => `${n}=${v}`),
        fc.constantFrom('&', '=', 'page', '==1', '&&'),
      ),
      { maxLength: 6 },
    )
    .map((parts) => (parts.length ? `?${parts.join('&')}` : ''));

/** A path id: valid-looking, edge, and hostile encodings. */
export const pathId: fc.Arbitrary<string> = fc.oneof(
  { arbitrary: fc.integer({ min: 1, max: 12 }).map(String), weight: 4 },
  {
    arbitrary: fc.constantFrom(
      '0',
      '-1',
      '+1',
      '01',
      '1e3',
      '1.0',
      '1.5',
      '99999999999',
      '2147483647',
      '2147483648',
      '9007199254740993',
      '0x1',
      'NaN',
      'null',
      '%00',
      '1%00',
      '%zz',
      '%',
      '%C0%AF',
      '%FF',
      '%ED%A0%80',
      '%20%31',
      '1%2F2',
      '..',
      '.',
      '%2E%2E',
      '%EF%BC%91',
      'x'.repeat(3000),
    ),
    weight: 4,
  },
  // Never empty: `/api/v1/items/` is the list, not an item.
  { arbitrary: anyString.map(pctEncode).filter((s) => s.length > 0), weight: 2 },
);

// ---------------------------------------------------------------------------------------------
// Authorization

/** Token labels; a suite resolves each to a real token at send time (tokens rotate). */
export type TokenLabel =
  | 'none'
  | 'admin'
  | 'customer'
  | 'admin-disabled'
  | 'admin-expired'
  | 'admin-long-lived'
  | 'customer-signed-by-admin-key'
  | 'alg-none'
  | 'garbage';

export const tokenLabel = (favour: TokenLabel[] = []): fc.Arbitrary<TokenLabel> =>
  fc.oneof(...(favour.length ? [{ arbitrary: fc.constantFrom(...favour), weight: 12 }] : []), {
    arbitrary: fc.constantFrom<TokenLabel>(
      'none',
      'admin',
      'customer',
      'admin-disabled',
      'admin-expired',
      'admin-long-lived',
      'customer-signed-by-admin-key',
      'alg-none',
      'garbage',
    ),
    weight: 6,
  });

/** A credential: which token, how it is written, and the garbage used where garbage is asked for. */
export const credentials = (favour: TokenLabel[] = []) =>
  fc.record({ label: tokenLabel(favour), style: authStyle, garbage: garbageToken });

/** How the token is written into the header(s). */
export type AuthStyle =
  | 'bearer'
  | 'lowercase'
  | 'extra-space'
  | 'no-scheme'
  | 'basic'
  | 'bearer-empty'
  | 'two-tokens-one-line'
  | 'two-headers';

export const authStyle: fc.Arbitrary<AuthStyle> = fc.oneof(
  { arbitrary: fc.constant<AuthStyle>('bearer'), weight: 16 },
  {
    arbitrary: fc.constantFrom<AuthStyle>(
      'lowercase',
      'extra-space',
      'no-scheme',
      'basic',
      'bearer-empty',
      'two-tokens-one-line',
      'two-headers',
    ),
    weight: 4,
  },
);

/** One character node:http accepts in a header value: printable ASCII or 0x80–0xFF (no DEL, no controls). */
export const latin1Char: fc.Arbitrary<string> = fc
  .oneof(fc.integer({ min: 0x20, max: 0x7e }), fc.integer({ min: 0x80, max: 0xff }))
  .map((c) => String.fromCharCode(c));

/** Garbage credentials node:http can send (latin-1, no control characters). */
export const garbageToken: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom('x', 'a.b.c', 'eyJ.eyJ.', '..', 'null', 'ÿþ', '"quoted"', 'a'.repeat(9000), 'e30.e30.', 'Bearer'),
  fc.string({ unit: latin1Char, minLength: 1, maxLength: 40 }),
);

/** Credentials a case presents: which token, how the header is written, and the garbage it may carry. */
export type PresentedAuth = { label: TokenLabel; style: AuthStyle; garbage: string };

/** `Authorization` header lines for `token` written in `style`. */
export function authorizationLines(
  token: string | undefined,
  style: AuthStyle,
  other = 'garbage',
): Array<[string, string]> {
  if (token === undefined) return [];
  switch (style) {
    case 'bearer':
      return [['authorization', `Bearer ${token}`]];
    case 'lowercase':
      return [['authorization', `bearer ${token}`]];
    case 'extra-space':
      return [['authorization', `Bearer   ${token}  `]];
    case 'no-scheme':
      return [['authorization', token]];
    case 'basic':
      return [['authorization', `Basic ${Buffer.from(`root:${token.slice(0, 20)}`).toString('base64')}`]];
    case 'bearer-empty':
      return [['authorization', 'Bearer ']];
    case 'two-tokens-one-line':
      return [['authorization', `Bearer ${token}, Bearer ${other}`]];
    case 'two-headers':
      return [
        ['authorization', `Bearer ${token}`],
        ['authorization', `Bearer ${other}`],
      ];
  }
}

/** An X-Forwarded-For value; with TRUST_PROXY set it picks the client IP (a fresh login budget). */
export const forwardedFor: fc.Arbitrary<string> = fc.oneof(
  {
    arbitrary: fc
      .tuple(fc.integer({ min: 1, max: 250 }), fc.integer({ min: 1, max: 250 }))
      .map(([a, b]) => `203.0.${a}.${b}`),
    weight: 8,
  },
  {
    arbitrary: fc.constantFrom(
      '',
      'unknown',
      '::1',
      '2001:db8::1',
      '999.999.999.999',
      '1.2.3.4, 5.6.7.8',
      'ÿ',
      ',,,',
      'x'.repeat(2000),
    ),
    weight: 2,
  },
);

/**
 * What the contract (§2, §3, §7.1) says a credential gets on a field or route of `realm`: `ok` for a
 * valid token of that system, the refusal's code otherwise, undefined where it depends on the
 * garbage. Token checks come before any input validation, on REST as in GraphQL.
 */
export function authOutcome(realm: 'admin' | 'customer', label: TokenLabel, style: AuthStyle): string | undefined {
  if (label === 'none' || ['no-scheme', 'basic', 'bearer-empty'].includes(style)) return 'UNAUTHENTICATED';
  if (style === 'two-headers' || style === 'two-tokens-one-line') return 'TOKEN_INVALID';
  if (label === 'garbage') return undefined;
  if (realm === 'customer') return label === 'customer' ? 'ok' : 'TOKEN_INVALID';
  switch (label) {
    case 'admin':
      return 'ok';
    case 'admin-disabled':
      return 'ACCOUNT_DISABLED';
    case 'admin-expired':
      return 'TOKEN_EXPIRED';
    default:
      return 'TOKEN_INVALID'; // the other system, a foreign signature, alg none, an over-long lifetime (§7.1)
  }
}
