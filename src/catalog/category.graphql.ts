/** The Category type and the public `categories` query (contract §4.3, §5). */
import { builder } from '../graphql/builder.ts';

export const CategoryType = builder.prismaObject('Category', {
  fields: (t) => ({
    id: t.exposeInt('id'),
    name: t.exposeString('name'),
    parentId: t.exposeInt('parentId', { nullable: true }),
    sortOrder: t.exposeInt('sortOrder'),
  }),
});

builder.queryField('categories', (t) =>
  t.prismaField({
    type: [CategoryType],
    description: 'Every category, ordered by `sortOrder`, then `id`. Public.',
    resolve: (query, _root, _args, ctx) =>
      ctx.db.prisma.category.findMany({ ...query, orderBy: [{ sortOrder: 'asc' }, { id: 'asc' }] }),
  }),
);
