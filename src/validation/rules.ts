/**
 * Small zod building blocks every input schema uses, so a rule and its wording exist once:
 * plain messages for missing / mistyped fields, and integers that also accept the digit strings a
 * query string carries.
 */
import { z } from 'zod';

/** A string field whose absence and wrong type read as plain messages in `errors`. */
export const text = () => z.string({ error: (issue) => (issue.input === undefined ? 'is required' : 'must be a string') });

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

/**
 * An integer that may also arrive as a string of digits (query parameters). Anything else, an empty
 * string or a repeated parameter included, gets `message`.
 */
export const intParam = (min: number, max: number, message: string) =>
  z.preprocess((v) => (typeof v === 'string' && /^[+-]?\d{1,16}$/.test(v) ? Number(v) : v), int(min, max, message));
