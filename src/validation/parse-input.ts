/**
 * Runs an input's zod schema and turns every issue into a contract field error (`skus[2].price`).
 * The same schema serves GraphQL (camelCase paths) and REST (snake_case paths), so an input's rules
 * are declared once, next to its domain.
 */
import type { z } from 'zod';
import { validationFailed, type FieldError } from '../errors/app-error.ts';

export type Naming = 'graphql' | 'rest';

/** `categoryId` → `category_id`. */
export function snakeCase(name: string): string {
  return name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

/** `category_id` → `categoryId`. */
export function camelCase(name: string): string {
  return name.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}

/** `['skus', 2, 'skuCode']` → `skus[2].skuCode` (GraphQL) or `skus[2].sku_code` (REST). */
export function fieldPath(path: readonly PropertyKey[], naming: Naming): string {
  let out = '';
  for (const seg of path) {
    if (typeof seg === 'number') out += `[${seg}]`;
    else {
      const name = naming === 'rest' ? snakeCase(String(seg)) : String(seg);
      out += out ? `.${name}` : name;
    }
  }
  return out;
}

export function fieldErrors(error: z.ZodError, naming: Naming, prefix: readonly PropertyKey[] = []): FieldError[] {
  return error.issues.map((issue) => ({
    field: fieldPath([...prefix, ...issue.path], naming) || '(body)',
    message: issue.message,
  }));
}

/**
 * Parses `input` with `schema`; throws VALIDATION_FAILED listing every problem. `prefix` names a
 * value that is not an object of fields itself (an argument such as `idempotencyKey`).
 */
export function parseInput<S extends z.ZodType>(
  schema: S,
  input: unknown,
  naming: Naming = 'graphql',
  prefix: readonly PropertyKey[] = [],
): z.output<S> {
  const result = schema.safeParse(input);
  if (!result.success) throw validationFailed(fieldErrors(result.error, naming, prefix));
  return result.data;
}
