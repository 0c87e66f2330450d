/**
 * Input rules of an export (contract §13.3): the file's format, and the filters of the admin's item
 * list checked by the list's own schema (`adminListItemsInput`), so an export of a list's filters
 * matches exactly the items the list shows. The HTTP route and the CLI give the same text (REST's
 * names and spellings) and get the same input, or the same problems.
 */
import { z } from 'zod';
import { type AdminListItemsInput, adminListItemsInput } from '../catalog/item-admin.schema.ts';
import { AppError, type FieldError, validationFailed } from '../errors/app-error.ts';
import { fromQueryText } from '../rest/inputs.ts';
import { type SpecFilter, specFiltersFromQuery } from '../search/spec-filter.ts';
import { fieldErrorsOf } from '../validation/field-errors.ts';

/** The file formats of contract §13.1. */
export const EXPORT_FORMATS = ['csv', 'jsonl'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

const exportFormatInput = z.object({
  format: z
    .enum(EXPORT_FORMATS, { error: `must be one of ${EXPORT_FORMATS.join(', ')}` })
    .nullish()
    .transform((v) => v ?? 'csv'),
});

/** An export's request as the services take it. */
export interface ExportInput {
  format: ExportFormat;
  /** The admin list's arguments; its page, limit and sort do not apply (an export is every match, by id). */
  filters: AdminListItemsInput;
}

/**
 * An export's request as text, in REST's names and spellings: a query string's values (a repeated
 * parameter is a list; the rules name it) or the CLI's options. `status` and `spec` repeat.
 */
export interface ExportText {
  format?: unknown;
  status: string[];
  category_id?: unknown;
  keyword?: unknown;
  min_price?: unknown;
  max_price?: unknown;
  in_stock?: unknown;
  spec: string[];
}

/**
 * Parses an export's request, read as GET /admin/api/items reads the same parameters (`category_id`
 * and `in_stock` from their usual spellings, `spec` as `name:value`); its page, limit, sort and facets
 * are no part of it. Throws VALIDATION_FAILED listing every problem at once, in GraphQL's names (as
 * parseInput does; `spec` as REST's): each caller renames them for its readers.
 */
export function exportInputOf(text: ExportText): ExportInput {
  let problems: FieldError[] = [];
  let specs: SpecFilter[] | undefined;
  try {
    specs = specFiltersFromQuery(text.spec);
  } catch (err) {
    if (!(err instanceof AppError) || !err.fieldErrors) throw err;
    problems = err.fieldErrors;
  }
  const formatResult = exportFormatInput.safeParse({ format: text.format });
  const filterResult = adminListItemsInput.safeParse({
    status: text.status,
    categoryId: fromQueryText('Int', text.category_id),
    keyword: text.keyword,
    minPrice: text.min_price,
    maxPrice: text.max_price,
    inStock: fromQueryText('Boolean', text.in_stock),
    specs,
  });
  const issues = [...(formatResult.error?.issues ?? []), ...(filterResult.error?.issues ?? [])];
  const errors = [...problems, ...fieldErrorsOf(issues, 'graphql')];
  if (errors.length) throw validationFailed(errors);
  return { format: formatResult.data!.format, filters: filterResult.data! };
}
