/**
 * The Pothos schema builder: plugins, context and scalar typing only. Types and fields live in
 * their domain folders; src/graphql/schema.ts assembles them.
 */
import SchemaBuilder from '@pothos/core';
import ComplexityPlugin from '@pothos/plugin-complexity';
import PrismaPlugin from '@pothos/plugin-prisma';
import ValidationPlugin from '@pothos/plugin-validation';
import { validationFailed } from '../errors/app-error.ts';
import type PrismaTypes from '../generated/pothos-prisma-types.ts';
import { getDatamodel } from '../generated/pothos-prisma-types.ts';
import type { RequestContext } from '../request-context.ts';
import type { UploadedFile } from '../transfer/uploaded-file.ts';
import { fieldErrorsOf } from '../validation/field-errors.ts';
import type { MoneyOutput } from '../validation/money.ts';
import FieldGuardsPlugin from './field-guards.ts';

export const builder = new SchemaBuilder<{
  Context: RequestContext;
  PrismaTypes: PrismaTypes;
  // Fields are non-null unless they say otherwise, as in contract §5.
  DefaultFieldNullability: false;
  Scalars: {
    DateTime: { Input: Date; Output: Date | string };
    JSONObject: { Input: Record<string, unknown>; Output: unknown };
    JSON: { Input: unknown; Output: unknown };
    Money: { Input: number | string; Output: MoneyOutput };
    File: { Input: UploadedFile; Output: never };
  };
}>({
  // A field declares the audience it serves (`authScopes`, src/auth/scopes.ts): field-guards.ts
  // resolves (and caches) that principal before the arguments are validated — which is why it comes
  // first — or throws the coded 401/403 of contract §2, so no resolver inspects tokens itself.
  plugins: [FieldGuardsPlugin, ValidationPlugin, ComplexityPlugin, PrismaPlugin],
  // Each input declares its rules once (a zod schema on its input type or arguments); resolvers and
  // services receive the parsed values. Every problem is reported, each with its field.
  validation: {
    validationError: (failure) => validationFailed(fieldErrorsOf(failure.issues, 'graphql')),
  },
  // Contract §7.2: a field's cost is 1 plus its children's; a field with a `limit` multiplies its
  // children by that limit (declared on the field), other lists count their children once. The plugin
  // only counts: graphql/cost-limit.ts adds what no page size multiplies (facets) and enforces the
  // limit before execution, for GraphQL clients' documents only.
  complexity: {
    defaultComplexity: 1,
    defaultListMultiplier: 1,
    disabled: true,
  },
  defaultFieldNullability: false,
  prisma: {
    // The client belongs to the database the app was started with, so it comes from the context.
    client: (ctx) => ctx.db.prisma,
    dmmf: getDatamodel(),
    exposeDescriptions: false,
    filterConnectionTotalCount: true,
    // A prisma field that ignores its `query` is a code bug the tests hit deterministically, in
    // every environment alike (so nothing here depends on the environment).
    onUnusedQuery: 'error',
  },
});

builder.queryType({});
builder.mutationType({});
