/**
 * What a refused action says when no field shows it (a button's action, a dialog's): VALIDATION_FAILED's
 * problems in the service's words ("is disabled; enable it first"), else the error's message.
 */
import { ApiError } from './errors.ts';

export function errorText(error: unknown): string {
  if (error instanceof ApiError && error.code === 'VALIDATION_FAILED' && error.fieldProblems.length > 0) {
    return error.fieldProblems.map((p) => p.message).join('; ');
  }
  return error instanceof Error ? error.message : String(error);
}
