/**
 * Small zod building blocks every input schema uses, so a rule and its wording exist once:
 * plain messages for missing / mistyped fields, and integers that also accept the digit strings a
 * query string carries.
 */
import { z } from 'zod';

const stringError = {
  error: (issue: { input: unknown }) => (issue.input === undefined ? 'is required' : 'must be a string'),
};

/**
 * False for text PostgreSQL cannot store or UTF-8 cannot carry: U+0000 (refused by `text` and `jsonb`)
 * and UTF-16 surrogates without their pair (JSON's `"\ud800"` escapes make them).
 */
export const isStorableText = (s: string): boolean => !s.includes('\u0000') && s.isWellFormed();

export const UNSTORABLE_TEXT = 'must not contain U+0000 or unpaired surrogates';

/**
 * A string field whose absence and wrong type read as plain messages in `errors`. Every string the
 * service stores or looks up is one of these, so no U+0000 or lone surrogate ever reaches a statement
 * (contract §7.1); the check runs first and stops the field's later rules.
 */
export const text = () => z.string(stringError).refine(isStorableText, { message: UNSTORABLE_TEXT, abort: true });

/** A secret that is only ever hashed, never stored or echoed: any characters are allowed (contract §7.1). */
export const secretText = () => z.string(stringError);

/**
 * Options for a string rule: it reports `message`, runs only on strings (zod would otherwise apply
 * length rules to an array too) and stops the field's later rules, so each field gets one message.
 */
export const rule = (message: string) =>
  ({ message, abort: true, when: (payload: { value: unknown }) => typeof payload.value === 'string' }) as const;

export const INT32_MAX = 2_147_483_647;

/** An integer in [min, max], one message for every way to miss it. */
export const int = (min: number, max: number, message: string) =>
  z
    .number({ error: (issue) => (issue.input === undefined ? 'is required' : message) })
    .int(message)
    .min(min, message)
    .max(max, message);

/** An absolute http(s) URL of at most 2048 characters (item images, avatars). */
export const httpUrl = () =>
  text()
    .max(2048, rule('must be at most 2048 characters'))
    .refine((v) => {
      try {
        const u = new URL(v);
        return (u.protocol === 'http:' || u.protocol === 'https:') && u.hostname !== '';
      } catch {
        return false;
      }
    }, 'must be an http(s) URL');

const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,3})?Z$/;

/**
 * The moment of an ISO 8601 UTC string (`2026-01-31T12:00:00.000Z`), or undefined — also for one
 * naming no real time (`2030-02-30`, which Date would roll over into March), and for the year 0000,
 * which Date takes but PostgreSQL's timestamptz refuses ("out of range"): its statement would fail.
 */
export function parseIsoUtc(value: string): Date | undefined {
  if (!ISO_UTC.test(value) || value.startsWith('0000')) return undefined;
  const date = new Date(value);
  return date.toISOString().slice(0, 19) === value.slice(0, 19) ? date : undefined;
}

/**
 * A point in time as the DateTime scalar takes it: an ISO 8601 UTC string (REST's raw value) or the
 * Date the scalar made of one (GraphQL).
 */
export const timestamp = () =>
  z
    .preprocess(
      (v) => (typeof v === 'string' ? (parseIsoUtc(v) ?? v) : v),
      z.date({ error: 'must be an ISO 8601 UTC timestamp such as 2026-01-31T12:00:00.000Z' }),
    )
    // What OpenAPI shows of it (zod cannot describe a preprocessed input by itself).
    .meta({ type: 'string', format: 'date-time' });
