/** `searchSuggestions` (contract §9.3): what a search box offers while the shopper types. Public. */
import { z } from 'zod';
import { builder } from '../graphql/builder.ts';
import type { RequestContext } from '../request-context.ts';
import { int, rule, text } from '../validation/rules.ts';
import { findSuggestions, type Suggestion } from './suggestions.ts';

export const MAX_SUGGESTIONS = 20;
export const DEFAULT_SUGGESTIONS = 8;

const SuggestionKindType = builder.enumType('SuggestionKind', { values: ['item', 'category'] as const });

const SuggestionType = builder.objectRef<Suggestion>('Suggestion').implement({
  description: 'A category or item name to offer; `id` is the category or item it names.',
  fields: (t) => ({
    text: t.exposeString('text'),
    kind: t.expose('kind', { type: SuggestionKindType }),
    id: t.exposeInt('id'),
  }),
});

builder.queryField('searchSuggestions', (t) =>
  t.field({
    type: [SuggestionType],
    description:
      'Category and item names with a word starting with `q` (or whose pinyin does): categories first, then items ' +
      'by relevance. Public.',
    args: t.validate(
      {
        q: t.arg.string({ required: true, description: '1..100 characters after trimming.' }),
        limit: t.arg.int({ description: `1..${MAX_SUGGESTIONS}, default ${DEFAULT_SUGGESTIONS}.` }),
      },
      z.object({
        q: text().trim().min(1, rule('must not be empty')).max(100, rule('must be at most 100 characters')),
        limit: int(1, MAX_SUGGESTIONS, `must be an integer between 1 and ${MAX_SUGGESTIONS}`)
          .nullish()
          .transform((v) => v ?? DEFAULT_SUGGESTIONS),
      }),
    ),
    resolve: (_root, args, ctx) => suggestionsFor(ctx, args),
  }),
);

/** The field's read, for its arguments as validated (REST renders the same read: suggestions.rest.ts). */
export const suggestionsFor = (
  ctx: RequestContext,
  args: { q: string; limit?: number | null },
): Promise<Suggestion[]> =>
  findSuggestions(ctx.catalogReads, args.q, args.limit ?? DEFAULT_SUGGESTIONS, {
    forgive: (search) => ctx.services.forgiving.forgive(ctx.catalogReads, search),
    categories: () => ctx.services.suggestionCategories.get(ctx.catalogReads),
  });
