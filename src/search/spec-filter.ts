/**
 * Spec filters (contract §9.2): GraphQL `specs: [{name, values}]`, REST `spec=name:value` repeated.
 * Values of one name are OR, names are AND, all on the same SKU; at most 10 names and 20 values each,
 * names and values 1..64 characters. One set of rules for both spellings: REST's strings are read into
 * the GraphQL shape here, and a string that is not `name:value` is named as `spec`.
 */
import { z } from 'zod';
import { validationFailed } from '../errors/app-error.ts';
import { rule, text } from '../validation/rules.ts';
import type { SpecFilter } from './item-query.ts';

export type { SpecFilter };

export const MAX_SPEC_NAMES = 10;
export const MAX_SPEC_VALUES = 20;
const MAX_SPEC_LENGTH = 64;

const specText = text()
  .trim()
  .min(1, rule('must not be empty'))
  .max(MAX_SPEC_LENGTH, rule(`must be at most ${MAX_SPEC_LENGTH} characters`));

/** Names compared case-insensitively after trimming: a name given twice is one name with both lists. */
export const specFilters = z
  .array(
    z.object({
      name: specText,
      values: z
        .array(specText)
        .min(1, rule('must have at least 1 value'))
        .max(MAX_SPEC_VALUES, rule(`must have at most ${MAX_SPEC_VALUES} values`)),
    }),
  )
  .transform((filters, ctx) => {
    const byName = new Map<string, SpecFilter>();
    for (const f of filters) {
      const key = f.name.toLowerCase();
      const merged = byName.get(key) ?? { name: f.name, values: [] };
      merged.values = [...new Set([...merged.values, ...f.values])];
      byName.set(key, merged);
    }
    if (byName.size > MAX_SPEC_NAMES) {
      ctx.addIssue({ code: 'custom', message: `must name at most ${MAX_SPEC_NAMES} specs` });
      return z.NEVER;
    }
    if ([...byName.values()].some((f) => f.values.length > MAX_SPEC_VALUES)) {
      ctx.addIssue({ code: 'custom', message: `must have at most ${MAX_SPEC_VALUES} values per spec` });
      return z.NEVER;
    }
    return [...byName.values()];
  });

/** REST's `spec` strings (`color:red`) as GraphQL's `[{name, values}]`; a malformed one → 400 on `spec`. */
export function specFiltersFromQuery(raw: string[]): SpecFilter[] | undefined {
  if (raw.length === 0) return undefined;
  const filters: SpecFilter[] = [];
  for (const entry of raw) {
    const at = entry.indexOf(':');
    const name = at < 0 ? '' : entry.slice(0, at).trim();
    const value = at < 0 ? '' : entry.slice(at + 1).trim();
    if (!name || !value || [...name].length > MAX_SPEC_LENGTH || [...value].length > MAX_SPEC_LENGTH) {
      throw validationFailed([{ field: 'spec', message: `must be name:value, each 1..${MAX_SPEC_LENGTH} characters` }]);
    }
    filters.push({ name, values: [value] });
  }
  const parsed = specFilters.safeParse(filters);
  if (!parsed.success) throw validationFailed([{ field: 'spec', message: parsed.error.issues[0]!.message }]);
  return parsed.data;
}
