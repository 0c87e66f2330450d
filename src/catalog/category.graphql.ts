/** The Category type, the public `categories` query and the admin category mutations (contract §4.3, §5). */
import { builder } from '../graphql/builder.ts';
import { findCategories } from './category.repository.ts';
import { categoryInput } from './category.schema.ts';
import { createCategory, deleteCategory, updateCategory } from './category.service.ts';
import type { CategoryRow } from './item.repository.ts';

// Reads come from SQL (category.repository.ts); writes return Prisma's rows, which have these fields too.
export const CategoryType = builder.objectRef<CategoryRow>('Category').implement({
  fields: (t) => ({
    id: t.exposeInt('id'),
    name: t.exposeString('name'),
    parentId: t.exposeInt('parentId', { nullable: true }),
    sortOrder: t.exposeInt('sortOrder'),
  }),
});

const CategoryInput = builder
  .inputType('CategoryInput', {
    fields: (t) => ({
      name: t.string({ required: true, description: '1..100 characters after trimming.' }),
      parentId: t.int({
        description: 'An existing category (not the category itself or a descendant); null for top level.',
      }),
      sortOrder: t.int({ description: 'Default 0; lists are ordered by it, then by id.' }),
    }),
  })
  .validate(categoryInput);

builder.queryField('categories', (t) =>
  t.field({
    type: [CategoryType],
    description: 'Every category, ordered by `sortOrder`, then `id`. Public.',
    resolve: (_root, _args, ctx) => findCategories(ctx.catalogReads),
  }),
);

builder.mutationFields((t) => ({
  createCategory: t.field({
    type: CategoryType,
    description: 'Admin: creates a category.',
    authScopes: { catalogWrite: true },
    args: { input: t.arg({ type: CategoryInput, required: true }) },
    resolve: (_root, args, ctx) => createCategory(ctx, args.input),
  }),
  updateCategory: t.field({
    type: CategoryType,
    description: 'Admin: renames, moves or re-orders a category (all three fields are set).',
    authScopes: { catalogWrite: true },
    args: { id: t.arg.int({ required: true }), input: t.arg({ type: CategoryInput, required: true }) },
    resolve: (_root, args, ctx) => updateCategory(ctx, args.id, args.input),
  }),
  deleteCategory: t.boolean({
    description: 'Admin: deletes a category; refused (VALIDATION_FAILED) while items or sub-categories use it.',
    authScopes: { catalogWrite: true },
    args: { id: t.arg.int({ required: true }) },
    resolve: (_root, args, ctx) => deleteCategory(ctx, args.id),
  }),
}));
