/**
 * Synonym groups for admins (contract §9.4): a keyword's term also matches the other terms of its
 * groups, ranked just below the same literal match. Every admin may read them and change them (the
 * roles of §10.1 — catalog_manager or owner for writes — arrive with the operator-trust work).
 */
import { z } from 'zod';
import { builder } from '../graphql/builder.ts';
import { INT32_MAX, int } from '../validation/rules.ts';
import { synonymTerms } from './synonyms.schema.ts';
import { deleteSynonymGroup, listSynonymGroups, type SynonymGroupRow, saveSynonymGroup } from './synonyms.service.ts';

const SynonymGroupType = builder.objectRef<SynonymGroupRow>('SynonymGroup').implement({
  description: 'Terms that mean the same to shoppers, stored normalised (NFKC, lower case, single spaces).',
  fields: (t) => ({
    id: t.exposeInt('id'),
    terms: t.exposeStringList('terms'),
  }),
});

builder.queryField('synonymGroups', (t) =>
  t.field({
    type: [SynonymGroupType],
    description: 'Admin: every synonym group, oldest first.',
    authScopes: { catalogRead: true },
    resolve: (_root, _args, ctx) => listSynonymGroups(ctx),
  }),
);

builder.mutationFields((t) => ({
  saveSynonymGroup: t.field({
    type: SynonymGroupType,
    description:
      'Admin: creates a group (without `id`) or replaces its terms (with `id`; NOT_FOUND when there is none). ' +
      'Searches see the change within a second on every instance.',
    authScopes: { catalogWrite: true },
    args: t.validate(
      {
        id: t.arg.int({ description: 'The group to replace; leave out to create one.' }),
        terms: t.arg.stringList({ required: true, description: '2..20 terms, each 1..64 characters, not blank.' }),
      },
      z.object({
        id: int(1, INT32_MAX, 'must be a positive integer')
          .nullish()
          .transform((v) => v ?? undefined),
        terms: synonymTerms,
      }),
    ),
    resolve: (_root, args, ctx) => saveSynonymGroup(ctx, args.id ?? undefined, args.terms),
  }),
  deleteSynonymGroup: t.boolean({
    description: 'Admin: deletes a group; NOT_FOUND when there is none.',
    authScopes: { catalogWrite: true },
    args: { id: t.arg.int({ required: true }) },
    resolve: (_root, args, ctx) => deleteSynonymGroup(ctx, args.id),
  }),
}));
