/**
 * Scalars of contract §5. JSONObject comes from graphql-scalars; DateTime and Money are ours: reads
 * arrive from SQL already in wire form (ISO 8601 UTC text, exact decimal text), which these pass
 * through instead of making and unmaking a Date or a Decimal per field.
 */
import { GraphQLError, Kind } from 'graphql';
import { JSONObjectResolver, JSONResolver } from 'graphql-scalars';
import { parseIsoUtc } from '../validation/rules.ts';
import { builder } from './builder.ts';

builder.addScalarType('JSONObject', JSONObjectResolver);
builder.addScalarType('JSON', JSONResolver);

builder.scalarType('DateTime', {
  description: 'A point in time: ISO 8601 in UTC with milliseconds (`2026-01-31T12:00:00.000Z`).',
  serialize: (value) => (typeof value === 'string' ? value : value.toISOString()),
  parseValue: (value) => {
    const date = typeof value === 'string' ? parseIsoUtc(value) : undefined;
    if (date) return date;
    throw new GraphQLError('DateTime must be an ISO 8601 UTC string such as 2026-01-31T12:00:00.000Z.');
  },
  parseLiteral: (ast) => {
    const date = ast.kind === Kind.STRING ? parseIsoUtc(ast.value) : undefined;
    if (date) return date;
    throw new GraphQLError('DateTime must be an ISO 8601 UTC string such as 2026-01-31T12:00:00.000Z.');
  },
});

builder.scalarType('Money', {
  description:
    'An amount of money: a JSON number with at most two fractional digits. Input may be a number or a decimal ' +
    'string ("19.90"); the range and precision are checked by the input validation, which names the field.',
  // Decimal text from SQL (`19.90`) is exact to the cent already; a Prisma Decimal or a number is rounded to it.
  serialize: (value) =>
    Number(typeof value === 'string' ? value : typeof value === 'object' ? value.toFixed(2) : value.toFixed(2)),
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
