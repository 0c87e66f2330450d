/** REST route of contract §9.3: `GET /api/v1/search/suggestions`, a public read cached like the catalogue. */
import { plainListRenderer } from '../rest/plain-render.ts';
import type { RestRoute } from '../rest/route.ts';
import { suggestionsFor } from './suggestions.graphql.ts';

export const suggestionRoutes: RestRoute[] = [
  {
    method: 'GET',
    path: '/api/v1/search/suggestions',
    summary: 'Names to offer while a shopper types: categories first, then items by relevance (Chinese and pinyin)',
    tag: 'Catalogue',
    document: /* GraphQL */ `
      query RestSearchSuggestions($q: String!, $limit: Int) {
        suggestions: searchSuggestions(q: $q, limit: $limit) { text kind id }
      }`,
    input: { from: 'query' },
    result: 'suggestions',
    // Contract §9.3's body is `{ "suggestions": [...] }`: the operation's whole `data`.
    bodyIsData: true,
    publicRead: true,
    // The field's own read, its objects projected by the selection (no execution: rest/plain-render.ts).
    render: plainListRenderer((ctx, args) => suggestionsFor(ctx, args as { q: string; limit?: number })),
    example: { query: { q: 'pao' } },
  },
];
