/**
 * Every GraphQL operation of schema.graphql as data for the hostile suite: its arguments with their
 * declared types and a generator of near-valid and hostile values per argument, the selection to
 * ask for, and the token system it needs. A case is one operation with generated arguments, sent as
 * variables, as inline literals, or (queries) over GET; `gqlLiteral` writes any generated value as
 * GraphQL source text, including values no schema would accept.
 */
import fc from 'fast-check';
import { itemInput } from '../helpers/catalog-admin.ts';
import {
  type DbWatch,
  Entries,
  exchange,
  jsonText,
  judgeGraphQL,
  RawJson,
  type Table,
  type Tally,
  type WireRequest,
} from '../helpers/hostile.ts';
import { TEST_ADMIN } from '../helpers/test-app.ts';
import {
  applyMutation,
  authOutcome,
  authStyle,
  edgeNumber,
  garbageToken,
  hasUnstorable,
  longString,
  type Mutation,
  mutationOf,
  oddStoredString,
  type Path,
  type PresentedAuth,
  pctEncode,
  tokenLabel,
  unstorableString,
  wildValue,
} from './arbitraries.ts';
import { FIXTURE_CUSTOMER, type Fixtures, PROTECTED } from './fixtures.ts';

/**
 * How one argument's value was made. The oracle trusts `valid`, `unstorable` (a stored string with
 * U+0000 or a lone surrogate: VALIDATION_FAILED) and `odd-secret` (the same in a login password, which
 * is only hashed: never VALIDATION_FAILED); `mutated` and `wild` may be anything.
 */
export type ArgKind = 'valid' | 'unstorable' | 'odd-secret' | 'mutated' | 'wild' | 'omitted';

export interface ArgValue {
  kind: ArgKind;
  value: unknown;
  /** For input objects: what was changed in the valid value. */
  mutation?: Mutation;
}

export interface ArgSpec {
  name: string;
  /** The type as declared in schema.graphql (for variable definitions). */
  type: string;
  /** Valid values of this argument (varied, so successes differ). */
  valid: fc.Arbitrary<unknown>;
  /** A string whose unstorable form must be refused (§7.1). */
  storedText?: boolean;
  /** A login password: any characters are allowed (§7.1: it is hashed, not stored). */
  secret?: boolean;
  /** An enum: a name-shaped string is written as the bare enum value in a literal document. */
  enum?: boolean;
  /** For input objects: the shape for near-valid mutations (camelCase paths). */
  shape?: { paths: Path[]; stringPaths: Path[]; objectPaths: Path[] };
}

export interface OpSpec {
  field: string;
  kind: 'query' | 'mutation';
  args: ArgSpec[];
  selection: string;
  /** The token system the field requires (its Pothos auth scope). */
  realm?: 'admin' | 'customer';
  /** Extra error codes a fully valid call may answer (rate limits, WeChat not configured …). */
  alsoAllowed?: string[];
}

const ITEM_FIELDS =
  'id name categoryId category { id name parentId sortOrder } price stock skus { id skuCode specs price stock } images { id url sortOrder } createdAt updatedAt';

/** Ids of rows that exist or did (sacrificial ones are small), plus the protected item for reads. */
const someId = fc.oneof(fc.integer({ min: 1, max: 12 }), fc.constant(PROTECTED.itemId));
const sacrificialId = fc.integer({ min: 1, max: 12 });

const ITEM_SHAPE = {
  paths: [
    [],
    ['name'],
    ['categoryId'],
    ['price'],
    ['stock'],
    ['skus'],
    ['skus', 0],
    ['skus', 0, 'skuCode'],
    ['skus', 0, 'specs'],
    ['skus', 0, 'specs', 'color'],
    ['skus', 0, 'price'],
    ['skus', 1, 'stock'],
    ['images'],
    ['images', 0],
    ['images', 0, 'url'],
    ['images', 1, 'sortOrder'],
  ] as Path[],
  stringPaths: [
    ['name'],
    ['skus', 0, 'skuCode'],
    ['skus', 1, 'skuCode'],
    ['skus', 0, 'specs', 'color'],
    ['images', 0, 'url'],
    ['images', 1, 'url'],
  ] as Path[],
  objectPaths: [[], ['skus', 0], ['skus', 0, 'specs'], ['images', 1]] as Path[],
};

const CATEGORY_SHAPE = {
  paths: [[], ['name'], ['parentId'], ['sortOrder']] as Path[],
  stringPaths: [['name']] as Path[],
  objectPaths: [[]] as Path[],
};

const validItemInput = fc
  .record({
    name: fc.constantFrom('Trail boot', '跑鞋', 'x'.repeat(200)),
    price: fc.constantFrom<unknown>(0, 19.9, '19.90', '99999999.99'),
    stock: fc.constantFrom(0, 7, 2147483647),
  })
  .map((o) => itemInput(PROTECTED.categoryId, o));

const validUpdateInput = fc
  .subarray(['name', 'categoryId', 'price', 'stock', 'skus', 'images'] as const, { minLength: 1 })
  .map((keys) => {
    const full = itemInput(PROTECTED.categoryId, { name: 'Updated boot', price: '25.00' });
    return Object.fromEntries(keys.map((k) => [k, full[k]]));
  });

const categoryInputValid = fc.record(
  {
    name: fc.oneof(
      fc.constantFrom('Hats', '帽子', 'x'.repeat(100)),
      fc.string({ unit: 'grapheme', minLength: 1, maxLength: 10 }),
    ),
    parentId: fc.option(sacrificialId, { nil: null }),
    sortOrder: fc.integer({ min: -5, max: 5 }),
  },
  { requiredKeys: ['name'] },
);

const emailNumber = fc.integer({ min: 1, max: 400 });

export const OPERATIONS: OpSpec[] = [
  {
    field: 'items',
    kind: 'query',
    args: [
      { name: 'page', type: 'Int', valid: fc.integer({ min: 1, max: 4 }) },
      { name: 'limit', type: 'Int', valid: fc.integer({ min: 1, max: 100 }) },
      { name: 'categoryId', type: 'Int', valid: fc.oneof(sacrificialId, fc.constant(PROTECTED.categoryId)) },
      {
        name: 'keyword',
        type: 'String',
        valid: fc.constantFrom('boot', '跑鞋', '%', '_', '\\', ' Sneaker '),
        storedText: true,
      },
    ],
    selection: `items { ${ITEM_FIELDS} } page limit total totalPages`,
  },
  { field: 'item', kind: 'query', args: [{ name: 'id', type: 'Int!', valid: someId }], selection: ITEM_FIELDS },
  { field: 'categories', kind: 'query', args: [], selection: 'id name parentId sortOrder' },
  { field: 'me', kind: 'query', args: [], selection: 'id username nickname avatarUrl', realm: 'customer' },
  { field: 'adminMe', kind: 'query', args: [], selection: 'id username role', realm: 'admin' },
  {
    field: 'login',
    kind: 'mutation',
    args: [
      {
        name: 'username',
        type: 'String!',
        valid: fc.constantFrom(
          FIXTURE_CUSTOMER.username,
          FIXTURE_CUSTOMER.username.toUpperCase(),
          'nobody@example.com',
        ),
        storedText: true,
      },
      {
        name: 'password',
        type: 'String!',
        valid: fc.constantFrom(FIXTURE_CUSTOMER.password, 'wrong password'),
        secret: true,
      },
    ],
    selection: 'accessToken tokenType expiresIn user { id username } isNewUser',
    alsoAllowed: ['RATE_LIMITED'],
  },
  {
    field: 'wxLogin',
    kind: 'mutation',
    args: [{ name: 'code', type: 'String!', valid: fc.stringMatching(/^ok:[a-z0-9]{1,20}$/), storedText: true }],
    selection: 'accessToken user { id username } isNewUser',
    // This suite's app has no WeChat configured (§3.2: 503 WX_LOGIN_NOT_CONFIGURED).
    alsoAllowed: ['RATE_LIMITED', 'WX_LOGIN_NOT_CONFIGURED'],
  },
  {
    field: 'refreshToken',
    kind: 'mutation',
    args: [],
    selection: 'accessToken tokenType expiresIn',
    realm: 'customer',
  },
  {
    field: 'adminLogin',
    kind: 'mutation',
    args: [
      {
        name: 'username',
        type: 'String!',
        valid: fc.constantFrom(TEST_ADMIN.username, ' root ', 'nobody'),
        storedText: true,
      },
      {
        name: 'password',
        type: 'String!',
        valid: fc.constantFrom(TEST_ADMIN.password, 'wrong password'),
        secret: true,
      },
      // The fixture admin has no two-factor login: a code is ignored (contract §10.3).
      { name: 'otp', type: 'String', valid: fc.constantFrom('123456', 'abcde-fghij'), storedText: true },
    ],
    selection: 'accessToken tokenType expiresIn admin { id username role }',
    alsoAllowed: ['RATE_LIMITED'],
  },
  {
    field: 'createItem',
    kind: 'mutation',
    args: [
      { name: 'input', type: 'CreateItemInput!', valid: validItemInput, shape: ITEM_SHAPE },
      {
        name: 'idempotencyKey',
        type: 'String',
        valid: fc.constantFrom('g1', 'g2', 'key-with-dashes'),
        storedText: true,
      },
    ],
    selection: ITEM_FIELDS,
    realm: 'admin',
  },
  {
    field: 'updateItem',
    kind: 'mutation',
    args: [
      { name: 'id', type: 'Int!', valid: sacrificialId },
      { name: 'input', type: 'UpdateItemInput!', valid: validUpdateInput, shape: ITEM_SHAPE },
    ],
    selection: ITEM_FIELDS,
    realm: 'admin',
  },
  {
    field: 'deleteItem',
    kind: 'mutation',
    args: [{ name: 'id', type: 'Int!', valid: sacrificialId }],
    selection: '',
    realm: 'admin',
  },
  {
    field: 'createCategory',
    kind: 'mutation',
    args: [
      {
        name: 'input',
        type: 'CategoryInput!',
        valid: categoryInputValid,
        shape: CATEGORY_SHAPE,
      },
    ],
    selection: 'id name parentId sortOrder',
    realm: 'admin',
  },
  {
    field: 'updateCategory',
    kind: 'mutation',
    args: [
      { name: 'id', type: 'Int!', valid: sacrificialId },
      {
        name: 'input',
        type: 'CategoryInput!',
        valid: categoryInputValid,
        shape: CATEGORY_SHAPE,
      },
    ],
    selection: 'id name parentId sortOrder',
    realm: 'admin',
  },
  {
    field: 'deleteCategory',
    kind: 'mutation',
    args: [{ name: 'id', type: 'Int!', valid: sacrificialId }],
    selection: '',
    realm: 'admin',
  },
  {
    field: 'createCustomer',
    kind: 'mutation',
    args: [
      {
        name: 'input',
        type: 'CreateCustomerInput!',
        valid: fc.record({
          username: emailNumber.map((n) => `gql-${n}@example.com`),
          password: fc.constant('password-123'),
          nickname: fc.option(fc.constantFrom('Alice', '爱丽丝'), { nil: undefined }),
        }),
        shape: {
          paths: [[], ['username'], ['password'], ['nickname']],
          stringPaths: [['username'], ['nickname']],
          objectPaths: [[]],
        },
      },
    ],
    selection: 'id username nickname avatarUrl',
    realm: 'admin',
  },
  {
    field: 'setCustomerDisabled',
    kind: 'mutation',
    args: [
      { name: 'id', type: 'Int!', valid: sacrificialId },
      { name: 'disabled', type: 'Boolean!', valid: fc.boolean() },
    ],
    selection: 'id username',
    realm: 'admin',
  },
  {
    field: 'createAdmin',
    kind: 'mutation',
    args: [
      {
        name: 'input',
        type: 'CreateAdminInput!',
        valid: fc.record({ username: emailNumber.map((n) => `gql-admin-${n}`), password: fc.constant('password-123') }),
        shape: { paths: [[], ['username'], ['password']], stringPaths: [['username']], objectPaths: [[]] },
      },
    ],
    selection: 'id username role',
    realm: 'admin',
  },
  {
    field: 'setAdminDisabled',
    kind: 'mutation',
    args: [
      // 1 is the caller (refused: not one's own); others are admins this run created.
      { name: 'id', type: 'Int!', valid: fc.integer({ min: 1, max: 6 }) },
      { name: 'disabled', type: 'Boolean!', valid: fc.boolean() },
    ],
    selection: 'id username role',
    realm: 'admin',
  },
  // Operator trust (contract §10).
  {
    field: 'setAdminRole',
    kind: 'mutation',
    args: [
      // Never the caller (1, the last owner: refused) and never to owner, so the caller stays the owner.
      { name: 'id', type: 'Int!', valid: fc.integer({ min: 2, max: 6 }) },
      {
        name: 'role',
        type: 'AdminRole!',
        valid: fc.constantFrom('catalog_manager', 'support', 'viewer'),
        enum: true,
      },
    ],
    selection: 'id role',
    realm: 'admin',
    alsoAllowed: ['NOT_FOUND'],
  },
  {
    field: 'auditLog',
    kind: 'query',
    args: [
      {
        name: 'action',
        type: 'String',
        valid: fc.constantFrom('item.create', 'admin.login', 'nothing.ever'),
        storedText: true,
      },
      { name: 'actorType', type: 'String', valid: fc.constantFrom('admin', 'cli'), storedText: true },
      { name: 'limit', type: 'Int', valid: fc.integer({ min: 1, max: 100 }) },
    ],
    selection: 'total entries { id action actor { type id } target { type id } changes }',
    realm: 'admin',
  },
  {
    field: 'confirmTotp',
    kind: 'mutation',
    // No enrolment is pending for the caller: a code is refused on `code`, never more.
    args: [{ name: 'code', type: 'String!', valid: fc.constantFrom('123456', '000000'), storedText: true }],
    selection: '',
    realm: 'admin',
    alsoAllowed: ['VALIDATION_FAILED'],
  },
  {
    field: 'revokeAdminSession',
    kind: 'mutation',
    args: [{ name: 'id', type: 'ID!', valid: fc.uuid(), storedText: true }],
    selection: '',
    realm: 'admin',
    alsoAllowed: ['NOT_FOUND'],
  },
  {
    field: 'revokeApiKey',
    kind: 'mutation',
    args: [{ name: 'id', type: 'Int!', valid: fc.integer({ min: 1, max: 6 }) }],
    selection: '',
    realm: 'admin',
    alsoAllowed: ['NOT_FOUND', 'VALIDATION_FAILED'],
  },
];

/** A generated value for one argument: mostly valid, else hostile in one of several ways. */
export function argValue(spec: ArgSpec): fc.Arbitrary<ArgValue> {
  const required = spec.type.endsWith('!');
  const choices: Array<fc.WeightedArbitrary<ArgValue>> = [
    { arbitrary: spec.valid.map((value) => ({ kind: 'valid' as const, value })), weight: 10 },
    { arbitrary: wildValue.map((value) => ({ kind: 'wild' as const, value })), weight: 2 },
    { arbitrary: fc.constant({ kind: 'omitted' as const, value: undefined }), weight: required ? 1 : 3 },
  ];
  if (spec.type.startsWith('String')) {
    const kind = spec.storedText
      ? ('unstorable' as const)
      : spec.secret
        ? ('odd-secret' as const)
        : ('mutated' as const);
    choices.push({ arbitrary: unstorableString.map((value) => ({ kind, value })), weight: 4 });
    choices.push({
      arbitrary: fc.oneof(oddStoredString, longString).map((value) => ({ kind: 'mutated' as const, value })),
      weight: 2,
    });
  }
  if (spec.type.startsWith('Int')) {
    choices.push({
      arbitrary: fc
        .oneof(
          edgeNumber,
          fc.constantFrom<unknown>('1', '1e3', new RawJson('1e400'), new RawJson('-0'), [1], { id: 1 }),
        )
        .map((value) => ({ kind: 'mutated' as const, value })),
      weight: 3,
    });
  }
  if (spec.shape) {
    const shape = spec.shape;
    choices.push({
      arbitrary: fc.tuple(spec.valid, mutationOf(shape)).map(([valid, mutation]) => {
        const value = applyMutation(valid as Record<string, unknown>, mutation);
        // Unstorable text placed in a field, or as a key of `specs` (a JSONObject takes any key; a key
        // anywhere else is an unknown field, refused by GraphQL itself before any scope runs). A valid
        // value holds none, and an update's subset may lack the path.
        const placed =
          mutation.op === 'unstorable' || (mutation.op === 'add-key' && mutation.path.join('.') === 'skus.0.specs');
        const unstorable = placed && hasUnstorable(value);
        return { kind: unstorable ? ('unstorable' as const) : ('mutated' as const), value, mutation };
      }),
      weight: 12,
    });
  }
  return fc.oneof(...choices);
}

const GRAPHQL_NAME = /^[_A-Za-z][_0-9A-Za-z]*$/;

/**
 * False when `gqlLiteral(value)` cannot parse: a lone surrogate (GraphQL strings cannot spell one) or
 * an object key that is not a GraphQL name.
 */
export function isSpellable(value: unknown): boolean {
  if (typeof value === 'string') return value.isWellFormed();
  if (value instanceof Entries) return value.entries.every(([k, v]) => GRAPHQL_NAME.test(k) && isSpellable(v));
  if (Array.isArray(value)) return value.every(isSpellable);
  if (value !== null && typeof value === 'object' && !(value instanceof RawJson))
    return isSpellable(new Entries(Object.entries(value)));
  return true;
}

/**
 * GraphQL source text for a generated value. Strings use JSON's escapes (`\u0000`, `\ud800`), which
 * GraphQL shares; values GraphQL cannot spell (NaN, keys that are not names) are written anyway, so
 * that they test the parser.
 */
export function gqlLiteral(value: unknown): string {
  if (value === undefined || value === null) return 'null';
  if (value instanceof RawJson) return value.text;
  if (value instanceof Entries)
    return `{${value.entries.map(([k, v]) => `${GRAPHQL_NAME.test(k) ? k : JSON.stringify(k)}: ${gqlLiteral(v)}`).join(', ')}}`;
  if (Array.isArray(value)) return `[${value.map(gqlLiteral).join(', ')}]`;
  if (typeof value === 'object')
    return gqlLiteral(new Entries(Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined)));
  if (typeof value === 'number') {
    if (Number.isNaN(value)) return 'NaN';
    if (!Number.isFinite(value)) return value > 0 ? 'Infinity' : '-Infinity';
    return Object.is(value, -0) ? '-0' : String(value);
  }
  if (typeof value === 'string') return JSON.stringify(value);
  return String(value);
}

export interface GraphQLCase {
  op: OpSpec;
  /** One per `op.args` entry, in order. */
  args: ArgValue[];
  mode: 'variables' | 'literals' | 'get';
  /** Declare one variable with the wrong type (a validation error before anything runs). */
  wrongVariableType: boolean;
}

/** The document (and variables) of a case. */
export function documentOf(c: GraphQLCase): { query: string; variables?: Record<string, unknown> } {
  const present = c.op.args.map((spec, i) => ({ spec, arg: c.args[i]! })).filter(({ arg }) => arg.kind !== 'omitted');
  const selection = c.op.selection ? ` { ${c.op.selection} }` : '';
  const name = `Fuzz${c.op.field.charAt(0).toUpperCase()}${c.op.field.slice(1)}`;
  if (c.mode === 'literals') {
    const literal = (spec: ArgSpec, value: unknown) =>
      spec.enum && typeof value === 'string' && /^[_A-Za-z]\w*$/.test(value) ? value : gqlLiteral(value);
    const args = present.map(({ spec, arg }) => `${spec.name}: ${literal(spec, arg.value)}`).join(', ');
    return { query: `${c.op.kind} ${name} { ${c.op.field}${args ? `(${args})` : ''}${selection} }` };
  }
  const defs = present
    .map(
      ({ spec }, i) =>
        `$${spec.name}: ${c.wrongVariableType && i === 0 ? (spec.type.startsWith('Int') ? 'String' : 'Int') : spec.type}`,
    )
    .join(', ');
  const args = present.map(({ spec }) => `${spec.name}: $${spec.name}`).join(', ');
  const variables = Object.fromEntries(present.map(({ spec, arg }) => [spec.name, arg.value]));
  return {
    query: `${c.op.kind} ${name}${defs ? `(${defs})` : ''} { ${c.op.field}${args ? `(${args})` : ''}${selection} }`,
    variables,
  };
}

// ---------------------------------------------------------------------------------------------
// Cases, requests and the oracle

/** An operation's spec by field name (cases carry the name, so counterexamples stay readable). */
export const opNamed = (field: string) => OPERATIONS.find((o) => o.field === field)!;

/** Credentials for an operation: mostly a token of the system it needs, else any kind. */
const authFor = (op: OpSpec) =>
  fc.record({
    label: tokenLabel(op.realm === 'admin' ? ['admin'] : op.realm === 'customer' ? ['customer'] : []),
    style: authStyle,
    garbage: garbageToken,
  });

/** Cases over the named operations: generated arguments, a transport, sometimes a mistyped variable. */
export const operationCase = (fields: readonly string[]) =>
  fc.constantFrom(...fields).chain((field) => {
    const op = opNamed(field);
    return fc.record({
      field: fc.constant(field),
      args: fc.tuple(...op.args.map(argValue)),
      mode: fc.oneof(
        { arbitrary: fc.constant('variables' as const), weight: 5 },
        { arbitrary: fc.constant('literals' as const), weight: 4 },
        { arbitrary: fc.constant('get' as const), weight: op.kind === 'query' ? 2 : 1 },
      ),
      // One case in 15 declares a variable with the wrong type.
      wrongVariableType: fc.integer({ min: 0, max: 14 }).map((n) => n === 0),
      auth: authFor(op),
    });
  });

/** A POST (JSON) or GET request to /graphql with `auth`'s Authorization line(s). */
export function graphqlRequest(
  fx: Fixtures,
  doc: { query: unknown; variables?: unknown },
  mode: 'post' | 'get',
  auth: PresentedAuth,
  extra: Record<string, unknown> = {},
): WireRequest {
  const headers: Array<[string, string]> = [['accept', 'application/json'], ...fx.authLines(auth)];
  if (mode === 'get') {
    const params = [`query=${pctEncode(String(doc.query))}`];
    if (doc.variables !== undefined) params.push(`variables=${pctEncode(jsonText(doc.variables))}`);
    return { method: 'GET', path: `/graphql?${params.join('&')}`, headers };
  }
  headers.push(['content-type', 'application/json']);
  return {
    method: 'POST',
    path: '/graphql',
    headers,
    body: jsonText({ query: doc.query, variables: doc.variables, ...extra }),
  };
}

/** What the contract prescribes for an operation case, when it prescribes one. */
export function expectedFor(c: GraphQLCase, auth: PresentedAuth): string[] | undefined {
  const present = c.args.filter((a) => a.kind !== 'omitted');
  if (c.mode !== 'literals' && c.wrongVariableType && present.length) return ['gql VALIDATION_FAILED'];
  // GraphQL cannot spell a lone surrogate (`"\ud800"` is a syntax error) or a key that is not a name:
  // such a document is refused before anything runs.
  if (c.mode === 'literals' && !present.every((a) => isSpellable(a.value))) return ['gql VALIDATION_FAILED'];
  if (c.mode === 'get' && c.op.kind === 'mutation') return undefined; // GET cannot mutate; the refusal's form is Yoga's
  const wellFormed = c.args.every(
    (a, i) =>
      ['valid', 'unstorable', 'odd-secret'].includes(a.kind) ||
      (a.kind === 'omitted' && !c.op.args[i]!.type.endsWith('!')),
  );
  if (!wellFormed) return undefined;
  const gql = (codes: string[]) => [...codes, ...(c.op.alsoAllowed ?? [])].map((code) => `gql ${code}`);
  // Scopes run before resolvers: the credential decides first.
  if (c.op.realm) {
    const outcome = authOutcome(c.op.realm, auth.label, auth.style);
    if (outcome === undefined) return undefined;
    if (outcome !== 'ok') return [`gql ${outcome}`];
  }
  if (c.args.some((a) => a.kind === 'unstorable')) return gql(['VALIDATION_FAILED']); // §7.1
  if (c.args.some((a) => a.kind === 'odd-secret')) return gql(['INVALID_CREDENTIALS']); // §7.1: passwords may hold anything
  return undefined;
}

type OperationCase = typeof operationCase extends (f: readonly string[]) => fc.Arbitrary<infer T> ? T : never;

/**
 * Sends one operation case and settles it: contract codes only, a query or a refused mutation
 * changes nothing, the prescribed answer where there is one. A successful refresh updates the token.
 */
export async function runOperationCase(
  ctx: { url: string; watch: DbWatch; tally: Tally },
  fx: Fixtures,
  { field, args, mode, wrongVariableType, auth }: OperationCase,
): Promise<void> {
  const c: GraphQLCase = { op: opNamed(field), args: [...args], mode, wrongVariableType };
  const req = graphqlRequest(fx, documentOf(c), mode === 'get' ? 'get' : 'post', auth);
  const { res, verdict } = await exchange(ctx, field, req, (r) => judgeGraphQL(r), {
    readOnly: c.op.kind === 'query',
    expected: expectedFor(c, auth),
    // §3.3: refreshing a retired token after its grace revokes the session — a refusal that writes.
    exemptWhen: (v): Table[] => (field === 'refreshToken' && v.code === 'TOKEN_REVOKED' ? ['customer_sessions'] : []),
  });
  const fresh = res?.json?.data?.refreshToken?.accessToken;
  if (field === 'refreshToken' && verdict.outcome === 'gql ok' && typeof fresh === 'string') fx.refreshed(fresh);
}

/**
 * The spread every operation must show: enough cases, refused in the ways its arguments and scope
 * allow, and (for `mustSucceed`) at least one success — a suite that never got past validation or
 * auth fails here instead of passing.
 */
export function operationSpread(
  tally: Tally,
  fields: readonly string[],
  perOperation: number,
  mustSucceed: readonly string[],
): string[] {
  return fields.flatMap((field) => {
    const op = opNamed(field);
    return tally.requireSpread(field, {
      total: perOperation,
      // Scoped operations and those with string arguments have cases whose answer the contract fixes.
      prescribed: op.realm || op.args.some((a) => a.type.startsWith('String') || a.shape) ? 1 : 0,
      outcomes: [
        ...(op.args.length ? ([[/^gql VALIDATION_FAILED$/, 1]] as const) : []),
        ...(op.realm ? ([[/^gql (UNAUTHENTICATED|TOKEN_INVALID)$/, 1]] as const) : []),
        ...(mustSucceed.includes(field) ? ([[/^gql ok$/, 1]] as const) : []),
      ],
    });
  });
}
