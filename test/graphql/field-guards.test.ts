/**
 * graphql/field-guards.ts is the one reader of what Pothos keeps about a field. These tests pin the
 * shape it relies on — a Pothos upgrade that moves it fails here, not somewhere in REST — and the
 * rule it serves: scopes before validation, and each done once per REST request.
 */
import SchemaBuilder from '@pothos/core';
import ValidationPlugin from '@pothos/plugin-validation';
import { execute, type GraphQLField, parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { AppError } from '../../src/errors/app-error.ts';
import FieldGuardsPlugin, {
  argsSchemaOf,
  inputSchemaOf,
  scopesOf,
  validateFieldArgs,
} from '../../src/graphql/field-guards.ts';
import { schema } from '../../src/graphql/schema.ts';
import type { RequestContext } from '../../src/request-context.ts';

const rootField = (kind: 'query' | 'mutation', name: string): GraphQLField<unknown, unknown> => {
  const root = kind === 'query' ? schema.getQueryType() : schema.getMutationType();
  const field = root?.getFields()[name];
  expect(field, `${kind} ${name}`).toBeDefined();
  return field!;
};

describe('what field-guards reads from Pothos', () => {
  it('when the schema is built, then the Pothos data it relies on is where it expects it', () => {
    const createItem = rootField('mutation', 'createItem');
    // Pothos' own extensions, which only field-guards.ts may read.
    expect(Array.isArray((createItem.extensions as { pothosArgMappers?: unknown }).pothosArgMappers)).toBe(true);
    expect((createItem.extensions as { pothosOptions?: { authScopes?: unknown } }).pothosOptions?.authScopes).toEqual({
      catalogWrite: true,
    });
    const input = schema.getType('CreateItemInput');
    expect(input?.extensions).toHaveProperty(['@pothos/plugin-validation', 'schemas']);
  });

  it('when a field declares scopes, then scopesOf names them; a public field has none', () => {
    expect(scopesOf(rootField('mutation', 'createItem'))).toEqual(['catalogWrite']);
    expect(scopesOf(rootField('query', 'adminMe'))).toEqual(['adminEnrolling']);
    expect(scopesOf(rootField('mutation', 'refreshToken'))).toEqual(['customerRefresh']);
    expect(scopesOf(rootField('query', 'me'))).toEqual(['customer']);
    expect(scopesOf(rootField('query', 'items'))).toEqual([]);
  });

  it('when an input type or a field validates with zod, then its schema is found and parses as the resolver would get it', () => {
    const input = inputSchemaOf(rootField('mutation', 'createItem').args[0]!.type);
    expect(input?.safeParse({ name: ' Boot ' }).success).toBe(false);
    const login = argsSchemaOf(rootField('mutation', 'login'));
    expect(login?.safeParse({ username: 'a@b.c', password: 'x' }).success).toBe(true);
    expect(argsSchemaOf(rootField('query', 'categories'))).toBeUndefined();
  });

  it("when a field's arguments are validated, then every problem is listed, and valid ones come back parsed", async () => {
    const items = rootField('query', 'items');
    const ctx = {} as RequestContext;
    const error = await validateFieldArgs(items, { page: 0, limit: 500 }, ctx).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).fieldErrors?.map((e) => e.field)).toEqual(['page', 'limit']);
    expect(await validateFieldArgs(items, { keyword: '  boot  ' }, ctx)).toMatchObject({
      page: 1,
      limit: 20,
      keyword: 'boot',
    });
  });
});

describe('the guard rule', () => {
  // A schema of its own, so the test can count what runs.
  const calls = { scope: 0, validation: 0 };
  // (Typed loosely: the Prisma plugin's global options, required by the app's builder, do not apply here.)
  const builder = new SchemaBuilder<{ Context: RequestContext }>({
    plugins: [FieldGuardsPlugin, ValidationPlugin],
  } as never);
  builder.queryType({
    fields: (t) => ({
      echo: t.string({
        authScopes: { admin: true },
        args: t.validate(
          { word: t.arg.string({ required: true }) },
          z.object({ word: z.string().refine(() => ++calls.validation > 0) }),
        ),
        resolve: (_root, args) => args.word,
      }),
    }),
  });
  const small = builder.toSchema();
  const contextOf = (allowed: boolean) =>
    ({
      auth: {
        // The `admin` scope: the caller's own admin account.
        adminAccount: async () => {
          calls.scope++;
          if (!allowed) throw new AppError('UNAUTHENTICATED', 'no token', { realm: 'admin' });
          return { adminId: 1 };
        },
      },
    }) as unknown as RequestContext;
  const run = (ctx: RequestContext, word: unknown) =>
    execute({
      schema: small,
      document: parse('query($w: String!) { echo(word: $w) }'),
      variableValues: { w: word },
      contextValue: ctx,
    });

  it('when a caller without the scope sends arguments, then it is refused before they are validated', async () => {
    calls.scope = calls.validation = 0;
    const result = await run(contextOf(false), 'hello');
    expect(result.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    expect(calls).toEqual({ scope: 1, validation: 0 });
  });

  it('when GraphQL executes the field, then its scopes are checked once and its arguments validated once', async () => {
    calls.scope = calls.validation = 0;
    expect((await run(contextOf(true), 'hello')).data).toEqual({ echo: 'hello' });
    expect(calls).toEqual({ scope: 1, validation: 1 });
  });

  it('when a REST route checked and validated first, then the execution does neither again', async () => {
    calls.scope = calls.validation = 0;
    const ctx = contextOf(true);
    const field = small.getQueryType()!.getFields().echo!;
    await ctx.auth.adminAccount();
    const args = await validateFieldArgs(field, { word: 'hello' }, ctx);
    ctx.guarded = { field: 'echo', args };
    expect((await run(ctx, 'hello')).data).toEqual({ echo: 'hello' });
    expect(calls).toEqual({ scope: 1, validation: 1 });
  });
});
