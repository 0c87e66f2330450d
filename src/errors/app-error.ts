/**
 * The contract's error codes (§2) as one set of error classes. They extend GraphQLError so they
 * pass Yoga's error masking with their `extensions.code`; the REST layer maps the same code to
 * an HTTP status through `HTTP_STATUS`, so both protocols say the same thing.
 */
import { GraphQLError } from 'graphql';

export const HTTP_STATUS = {
  MALFORMED_JSON: 400,
  /** Not HTTP/1.1 at all (broken framing); answered by the server's client-error hook (§7.1). */
  MALFORMED_REQUEST: 400,
  VALIDATION_FAILED: 400,
  INVALID_CREDENTIALS: 401,
  UNAUTHENTICATED: 401,
  TOKEN_INVALID: 401,
  TOKEN_EXPIRED: 401,
  TOKEN_REVOKED: 401,
  WX_CODE_INVALID: 401,
  /** An admin with two-factor login sent the right password without `otp` (§10.3). */
  OTP_REQUIRED: 401,
  OTP_INVALID: 401,
  ACCOUNT_DISABLED: 403,
  /** A valid admin token or API key whose role may not do this (§10.1). */
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  /** A browser asked for GraphiQL where it is off (GRAPHIQL=false, production). */
  NOT_ACCEPTABLE: 406,
  /** Headers not complete within 10 s, or the whole request within 30 s (§7.4). */
  REQUEST_TIMEOUT: 408,
  IDEMPOTENCY_CONFLICT: 409,
  /** A stock adjustment would take a SKU below 0 (§12.3); `errors` names each such adjustment. */
  INSUFFICIENT_STOCK: 409,
  /** `If-Match` / `expectedVersion` names an older version of the item (§12.2). */
  VERSION_CONFLICT: 409,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  RATE_LIMITED: 429,
  HEADERS_TOO_LARGE: 431,
  INTERNAL: 500,
  WX_LOGIN_NOT_CONFIGURED: 503,
  UPSTREAM_UNAVAILABLE: 503,
  SERVICE_UNAVAILABLE: 503,
} as const;

export type ErrorCode = keyof typeof HTTP_STATUS;

/** One problem with one input field; `field` is a path such as `skus[2].price`. */
export interface FieldError {
  field: string;
  message: string;
}

/** Which token system a 401 concerns; it becomes the `WWW-Authenticate` realm. */
export type Realm = 'customer' | 'admin';

export interface AppErrorOptions {
  errors?: FieldError[];
  realm?: Realm;
  /** Seconds, for 429 (`Retry-After`). */
  retryAfter?: number;
  /** A token was presented (RFC 6750 `error="invalid_token"`). */
  tokenPresented?: boolean;
  /** More GraphQL `extensions` (`currentVersion` of a VERSION_CONFLICT). */
  extensions?: Record<string, unknown>;
  cause?: unknown;
}

export class AppError extends GraphQLError {
  readonly code: ErrorCode;
  readonly status: number;
  readonly fieldErrors?: FieldError[];
  readonly realm?: Realm;
  readonly retryAfter?: number;
  readonly tokenPresented?: boolean;

  constructor(code: ErrorCode, detail: string, options: AppErrorOptions = {}) {
    super(detail, {
      extensions: {
        code,
        ...(options.errors ? { errors: options.errors } : {}),
        ...(options.retryAfter !== undefined ? { retryAfter: options.retryAfter } : {}),
        ...options.extensions,
      },
      originalError: options.cause instanceof Error ? options.cause : undefined,
    });
    this.name = 'AppError';
    this.code = code;
    this.status = HTTP_STATUS[code];
    this.fieldErrors = options.errors;
    this.realm = options.realm;
    this.retryAfter = options.retryAfter;
    this.tokenPresented = options.tokenPresented;
  }
}

/** Where each protocol puts the list of field errors: GraphQL in `extensions.errors`, REST in `errors`. */
export const FIELD_ERRORS_DETAIL = {
  graphql: 'The request has invalid fields; see `extensions.errors`.',
  rest: 'The request has invalid fields; see `errors`.',
} as const;

export const validationFailed = (errors: FieldError[]) =>
  new AppError('VALIDATION_FAILED', FIELD_ERRORS_DETAIL.graphql, { errors });

export const notFound = (what = 'resource') => new AppError('NOT_FOUND', `No such ${what}.`);

/** The item is at `currentVersion`, not the one the write expected (contract §12.2); nothing changed. */
export const versionConflict = (currentVersion: number) =>
  new AppError(
    'VERSION_CONFLICT',
    `The item was changed meanwhile: its current version is ${currentVersion}. Read it again and retry.`,
    { extensions: { currentVersion } },
  );

/** Said only after the right password or a valid token (contract §2), so it reveals nothing more. */
export const accountDisabled = () => new AppError('ACCOUNT_DISABLED', 'The account is disabled.');

/** The stable "something broke" error: details are logged with the request id, never shown. */
export const internalError = () =>
  new AppError('INTERNAL', 'An unexpected error occurred. Quote the request id when reporting it.');

/** An import file past IMPORT_MAX_BYTES (contract §13.2), however it came: REST body or GraphQL upload. */
export const importFileTooLarge = (maxBytes: number) =>
  new AppError('PAYLOAD_TOO_LARGE', `The file exceeds IMPORT_MAX_BYTES (${maxBytes} bytes).`, {
    extensions: { http: { status: 413 } },
  });

export const serviceUnavailable = () =>
  new AppError('SERVICE_UNAVAILABLE', 'The database is unreachable; try again shortly.');
