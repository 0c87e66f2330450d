/**
 * What the console does with an error of the service (console.md §2): each answer's first error
 * becomes an ApiError carrying the contract's code; the query and mutation caches route token
 * errors to sign-in; screens show FORBIDDEN's message and put VALIDATION_FAILED's problems under
 * their fields.
 */

/** The contract's codes that mean "sign in again". */
export const TOKEN_CODES: ReadonlySet<string> = new Set([
  'UNAUTHENTICATED',
  'TOKEN_EXPIRED',
  'TOKEN_REVOKED',
  'TOKEN_INVALID',
]);

export interface FieldProblem {
  field: string;
  message: string;
}

export class ApiError extends Error {
  override name = 'ApiError';
  constructor(
    /** The contract's code (`FORBIDDEN`, `VALIDATION_FAILED` …), `NETWORK` when no answer came. */
    readonly code: string,
    message: string,
    readonly extensions: Record<string, unknown> = {},
  ) {
    super(message);
  }

  /** VALIDATION_FAILED's problems, one per field (`extensions.errors`). */
  get fieldProblems(): FieldProblem[] {
    const list = this.extensions.errors;
    return Array.isArray(list)
      ? list.filter((p): p is FieldProblem => typeof p?.field === 'string' && typeof p?.message === 'string')
      : [];
  }
}

export const isTokenError = (error: unknown): error is ApiError =>
  error instanceof ApiError && TOKEN_CODES.has(error.code);

/** The first problem named for each field, for showing under the field. */
export function problemsByField(error: unknown): Record<string, string> {
  const byField: Record<string, string> = {};
  if (!(error instanceof ApiError) || error.code !== 'VALIDATION_FAILED') return byField;
  for (const { field, message } of error.fieldProblems) byField[field] ??= message;
  return byField;
}
