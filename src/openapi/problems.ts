/**
 * The error answers of one REST route for the OpenAPI document: one response per status, each with
 * an example per contract code it can carry (§2), so a reader sees `RATE_LIMITED` under 429 and
 * `NOT_FOUND` under 404 — never one generic example for every status.
 */
import { STATUS_CODES } from 'node:http';
import type { z } from 'zod';
import { type ErrorCode, FIELD_ERRORS_DETAIL, type FieldError, HTTP_STATUS } from '../errors/app-error.ts';
import type { CompiledRoute } from '../rest/route.ts';
import { fieldErrorsOf } from '../validation/field-errors.ts';

type JsonSchema = Record<string, unknown>;

/** What each code's answer says (the services' own wording where it is fixed). */
const DETAIL: Record<ErrorCode, string> = {
  MALFORMED_JSON: 'The body is not valid JSON.',
  MALFORMED_REQUEST: 'The request is not valid HTTP/1.1.',
  VALIDATION_FAILED: FIELD_ERRORS_DETAIL.rest,
  INVALID_CREDENTIALS: 'Wrong username or password.',
  UNAUTHENTICATED: 'Send `Authorization: Bearer <access token>`.',
  TOKEN_INVALID: 'The token is malformed, signed with another key or algorithm, or issued for another system.',
  TOKEN_EXPIRED: 'The token expired at 2026-01-31T12:00:00.000Z.',
  TOKEN_REVOKED: 'The session was revoked; log in again.',
  WX_CODE_INVALID: 'WeChat rejected the code (invalid, used or expired).',
  OTP_REQUIRED: 'Two-factor login is on: send `otp` (a 6-digit code or a recovery code).',
  OTP_INVALID: 'The one-time code is wrong, expired or already used.',
  ACCOUNT_DISABLED: 'The account is disabled.',
  FORBIDDEN: "This needs the role owner or catalog_manager; the caller's role is viewer.",
  NOT_FOUND: 'No such item.',
  METHOD_NOT_ALLOWED: 'DELETE is not allowed here; use GET or HEAD.',
  NOT_ACCEPTABLE: 'GraphiQL is off on this server (GRAPHIQL); send GraphQL requests as JSON.',
  REQUEST_TIMEOUT: 'The request did not arrive in time.',
  IDEMPOTENCY_CONFLICT: 'This Idempotency-Key was used with a different body.',
  INSUFFICIENT_STOCK: 'Not enough stock for every adjustment; nothing was changed.',
  VERSION_CONFLICT: 'The item was changed meanwhile: its current version is 4. Read it again and retry.',
  PAYLOAD_TOO_LARGE: 'The body is larger than 102400 bytes.',
  UNSUPPORTED_MEDIA_TYPE: 'Send the body as `Content-Type: application/json`.',
  RATE_LIMITED: 'Too many attempts; retry after the number of seconds in Retry-After.',
  HEADERS_TOO_LARGE: 'The request headers are too large.',
  INTERNAL: 'An unexpected error occurred. Quote the request id when reporting it.',
  WX_LOGIN_NOT_CONFIGURED: 'Mini-program login is not configured on this server.',
  UPSTREAM_UNAVAILABLE: 'WeChat did not answer in time; try again shortly.',
  SERVICE_UNAVAILABLE: 'The database is unreachable; try again shortly.',
};

/** What a refused stock adjustment names (stock.service.ts words it). */
const INSUFFICIENT_STOCK_ERRORS: FieldError[] = [
  { field: 'adjustments[0].delta', message: 'would take the stock of SKU 1 below 0: 3 available' },
];

/**
 * What a route's error answers follow from: its input, token system, path and own codes — a row of the
 * table, or a route described by hand (described-route.ts).
 */
export type ProblemSource = Pick<CompiledRoute, 'input' | 'realm' | 'path' | 'errors'>;

/** The codes a route can answer with: its own list plus what its input, scope and path imply. */
export function errorCodesOf(route: ProblemSource): ErrorCode[] {
  const codes = new Set<ErrorCode>();
  if (route.input) codes.add('VALIDATION_FAILED');
  if (route.input?.from === 'body') {
    for (const code of ['MALFORMED_JSON', 'PAYLOAD_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE'] as const) codes.add(code);
  }
  if (route.realm) {
    for (const code of ['UNAUTHENTICATED', 'TOKEN_INVALID', 'TOKEN_EXPIRED', 'ACCOUNT_DISABLED'] as const) {
      codes.add(code);
    }
    if (route.realm === 'admin') {
      codes.add('TOKEN_REVOKED');
      codes.add('FORBIDDEN');
    }
  }
  if (route.path.includes(':')) codes.add('NOT_FOUND');
  for (const code of route.errors ?? []) codes.add(code);
  codes.add('INTERNAL');
  codes.add('SERVICE_UNAVAILABLE');
  return [...codes];
}

/**
 * The real field errors the route's validation reports for an empty body (every required field) or,
 * for query parameters, for `0` in each (out of range or of the wrong type).
 */
function exampleFieldErrors(route: ProblemSource, input: z.ZodType | undefined): FieldError[] {
  if (!input) return [{ field: '(body)', message: 'must be a JSON object' }];
  const shape = (input as unknown as { shape?: Record<string, unknown> }).shape ?? {};
  const sample = route.input?.from === 'query' ? Object.fromEntries(Object.keys(shape).map((k) => [k, 0])) : {};
  const result = input.safeParse(sample);
  const errors = result.success ? [] : fieldErrorsOf(result.error.issues, 'rest');
  return errors.length ? errors : [{ field: Object.keys(shape)[0] ?? '(body)', message: 'is required' }];
}

/**
 * `responses` entries for every error status of `route`, each with one example per code; the
 * VALIDATION_FAILED example lists `validationErrors` (default: what `input` reports, see exampleFieldErrors).
 */
export function problemResponses(
  route: ProblemSource,
  input: z.ZodType | undefined,
  validationErrors?: FieldError[],
): Record<string, JsonSchema> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of errorCodesOf(route)) {
    const status = HTTP_STATUS[code];
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const responses: Record<string, JsonSchema> = {};
  for (const [status, codes] of [...byStatus].sort(([a], [b]) => a - b)) {
    const examples: Record<string, JsonSchema> = {};
    for (const code of codes) {
      const value = {
        type: 'about:blank',
        title: STATUS_CODES[status] ?? 'Error',
        status,
        code,
        detail: DETAIL[code],
        ...(code === 'VALIDATION_FAILED' ? { errors: validationErrors ?? exampleFieldErrors(route, input) } : {}),
        ...(code === 'INSUFFICIENT_STOCK' ? { errors: INSUFFICIENT_STOCK_ERRORS } : {}),
        request_id: '0b6f3c2e-5d7a-4c1e-9f2b-8a4d6e1c3b5a',
      };
      examples[code] = { summary: code, value };
    }
    const headers: Record<string, JsonSchema> = {};
    if (status === 401) {
      headers['WWW-Authenticate'] = {
        description: `Bearer realm="${route.realm ?? 'customer'}", with error="invalid_token" when a token was sent.`,
        schema: { type: 'string' },
      };
    }
    if (status === 429) {
      headers['Retry-After'] = { description: 'Seconds to wait before trying again.', schema: { type: 'integer' } };
    }
    responses[String(status)] = {
      description: codes.join(', '),
      ...(Object.keys(headers).length ? { headers } : {}),
      content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' }, examples } },
    };
  }
  return responses;
}

export const problemSchema: JsonSchema = {
  type: 'object',
  description: 'RFC 9457 problem details with the contract error code.',
  required: ['type', 'title', 'status', 'code', 'detail', 'request_id'],
  properties: {
    type: { type: 'string', const: 'about:blank' },
    title: { type: 'string' },
    status: { type: 'integer' },
    code: { type: 'string', enum: Object.keys(HTTP_STATUS) },
    detail: { type: 'string' },
    errors: {
      type: 'array',
      description: 'Every invalid field, for VALIDATION_FAILED; every short adjustment, for INSUFFICIENT_STOCK.',
      items: {
        type: 'object',
        required: ['field', 'message'],
        properties: { field: { type: 'string' }, message: { type: 'string' } },
      },
    },
    request_id: { type: 'string' },
  },
};
