/**
 * Scalars of contract §5. DateTime and JSONObject come from graphql-scalars; Money is ours because
 * its rules (exact decimals, at most two fractional digits) are the shop's, not a general format.
 */
import { GraphQLError, Kind } from 'graphql';
import { DateTimeISOResolver, JSONObjectResolver } from 'graphql-scalars';
import { builder } from './builder.ts';

/** What resolvers may return for Money: Prisma's Decimal, or a number / decimal string. */
export type MoneyOutput = number | string | { toFixed(digits: number): string };

builder.addScalarType('DateTime', DateTimeISOResolver);
builder.addScalarType('JSONObject', JSONObjectResolver);

builder.scalarType('Money', {
  description:
    'An amount of money: a JSON number with at most two fractional digits. Input may be a number or a decimal ' +
    'string ("19.90"); the range and precision are checked by the input validation, which names the field.',
  serialize: (value) => {
    const fixed = typeof value === 'object' ? value.toFixed(2) : Number(value).toFixed(2);
    return Number(fixed);
  },
  // Only the JSON type is checked here; the money rules live in src/validation/money.ts so that a bad
  // amount is reported with its field path like every other validation failure.
  parseValue: (value) => {
    if (typeof value === 'number' || typeof value === 'string') return value;
    throw new GraphQLError('Money must be a number or a decimal string.');
  },
  parseLiteral: (ast) => {
    if (ast.kind === Kind.INT || ast.kind === Kind.FLOAT || ast.kind === Kind.STRING) return ast.value;
    throw new GraphQLError('Money must be a number or a decimal string.');
  },
});
