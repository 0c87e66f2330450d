/**
 * The Pothos schema builder: plugins, context and scalar typing only. Types and fields live in
 * their domain folders; src/graphql/schema.ts assembles them.
 */
import SchemaBuilder from '@pothos/core';
import PrismaPlugin from '@pothos/plugin-prisma';
import ScopeAuthPlugin from '@pothos/plugin-scope-auth';
import type PrismaTypes from '../generated/pothos-prisma-types.ts';
import { getDatamodel } from '../generated/pothos-prisma-types.ts';
import type { Context } from './context.ts';
import type { MoneyOutput } from './scalars.ts';

export const builder = new SchemaBuilder<{
  Context: Context;
  PrismaTypes: PrismaTypes;
  // Fields are non-null unless they say otherwise, as in contract §5.
  DefaultFieldNullability: false;
  // A field declares the audience it serves; the scope resolves (and caches) that principal or throws
  // the coded 401/403 of contract §2, so no resolver inspects tokens itself.
  // `customerRefresh` admits a customer token expired by no more than the refresh grace (refreshToken only).
  AuthScopes: { customer: boolean; customerRefresh: boolean; admin: boolean };
  Scalars: {
    DateTime: { Input: Date; Output: Date | string };
    JSONObject: { Input: Record<string, unknown>; Output: unknown };
    Money: { Input: number | string; Output: MoneyOutput };
  };
}>({
  plugins: [ScopeAuthPlugin, PrismaPlugin],
  scopeAuth: {
    authScopes: (ctx) => ({
      customer: async () => Boolean(await ctx.auth.customer()),
      customerRefresh: async () => Boolean(await ctx.auth.refreshClaims()),
      admin: async () => Boolean(await ctx.auth.admin()),
    }),
  },
  defaultFieldNullability: false,
  prisma: {
    // The client belongs to the database the app was started with, so it comes from the context.
    client: (ctx) => ctx.db.prisma,
    dmmf: getDatamodel(),
    exposeDescriptions: false,
    filterConnectionTotalCount: true,
    onUnusedQuery: process.env.NODE_ENV === 'production' ? null : 'error',
  },
});

builder.queryType({});
builder.mutationType({});

