/**
 * Validation issues as the contract's field errors (`skus[2].price`): GraphQL names fields as its
 * input types do (camelCase), REST as its bodies and query strings do (snake_case).
 */
import type { z } from 'zod';
import { type FieldError, validationFailed } from '../errors/app-error.ts';

export type Naming = 'graphql' | 'rest';

/** The argument that carries a mutation's input object: its fields are named without it. */
const INPUT_ARGUMENT = 'input';

/** `categoryId` → `category_id`. */
export function snakeCase(name: string): string {
  return name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

/** Arguments REST reads from a request header: their problems are named as the header. */
const HEADER_ARGUMENTS: Record<string, string> = { idempotencyKey: 'Idempotency-Key' };

/** `['skus', 2, 'skuCode']` → `skus[2].skuCode` (GraphQL) or `skus[2].sku_code` (REST). */
export function fieldPath(path: readonly PropertyKey[], naming: Naming): string {
  let out = '';
  for (const seg of path) {
    if (typeof seg === 'number') out += `[${seg}]`;
    else if (naming === 'rest' && out === '' && Object.hasOwn(HEADER_ARGUMENTS, seg))
      out = HEADER_ARGUMENTS[seg as string]!;
    else {
      const name = naming === 'rest' ? snakeCase(String(seg)) : String(seg);
      out += out ? `.${name}` : name;
    }
  }
  return out;
}

/** A Standard Schema issue (zod's among them). */
interface Issue {
  readonly message: string;
  readonly path?: ReadonlyArray<PropertyKey | { readonly key: PropertyKey }> | undefined;
}

/** Every issue as a field error; a path inside the `input` argument is named without it. */
export function fieldErrorsOf(issues: readonly Issue[], naming: Naming): FieldError[] {
  return issues.map((issue) => {
    let path = (issue.path ?? []).map((seg) => (typeof seg === 'object' && seg !== null ? seg.key : seg));
    if (path[0] === INPUT_ARGUMENT) path = path.slice(1);
    return { field: fieldPath(path, naming) || '(body)', message: issue.message };
  });
}

/** An HTTP header's name (`If-Match`, `Idempotency-Key`): a REST route's problem with a header keeps it as it is. */
const HEADER_NAME = /^[A-Z][A-Za-z]*(-[A-Z][A-Za-z]*)+$/;

/** A validation failure renamed for REST: GraphQL paths (`skus[0].skuCode`) become `skus[0].sku_code`. */
export function restFieldErrors(errors: readonly FieldError[]): FieldError[] {
  return errors.map((e) => ({
    ...e,
    field: HEADER_NAME.test(e.field)
      ? e.field
      : fieldPath(
          e.field.split(/\.|(?=\[)/).map((s) => (s.startsWith('[') ? Number(s.slice(1, -1)) : s)),
          'rest',
        ),
  }));
}

/** Parses `input` with `schema` outside GraphQL (the CLI); throws VALIDATION_FAILED listing every problem. */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const result = schema.safeParse(input);
  if (!result.success) throw validationFailed(fieldErrorsOf(result.error.issues, 'graphql'));
  return result.data;
}
