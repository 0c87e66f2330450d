/** What a refused team action says: VALIDATION_FAILED's problems in the service's words, else its message. */
import { ApiError } from '../../../gql/errors.ts';

export function errorText(error: unknown): string {
  if (error instanceof ApiError && error.code === 'VALIDATION_FAILED' && error.fieldProblems.length > 0) {
    return error.fieldProblems.map((p) => p.message).join('; ');
  }
  return error instanceof Error ? error.message : String(error);
}
