/** The Category type, the public `categories` query and the admin category mutations (contract §4.3, §5). */
import { builder } from '../graphql/builder.ts';
import { asAdmin } from '../graphql/context.ts';
import { findCategories } from './item.repository.ts';
import { createCategory, deleteCategory, updateCategory } from './category.service.ts';

export const CategoryType = builder.prismaObject('Category', {
  fields: (t) => ({
    id: t.exposeInt('id'),
    name: t.exposeString('name'),
    parentId: t.exposeInt('parentId', { nullable: true }),
    sortOrder: t.exposeInt('sortOrder'),
  }),
});

const CategoryInput = builder.inputType('CategoryInput', {
  fields: (t) => ({
    name: t.string({ required: true, description: '1..100 characters after trimming.' }),
    parentId: t.int({ description: 'An existing category (not the category itself or a descendant); null for top level.' }),
    sortOrder: t.int({ description: 'Default 0; lists are ordered by it, then by id.' }),
  }),
});

builder.queryField('categories', (t) =>
  t.field({
    type: [CategoryType],
    description: 'Every category, ordered by `sortOrder`, then `id`. Public.',
    resolve: (_root, _args, ctx) => findCategories(ctx.db.sql),
  }),
);

builder.mutationFields((t) => ({
  createCategory: t.field({
    type: CategoryType,
    description: 'Admin: creates a category.',
    authScopes: { admin: true },
    args: { input: t.arg({ type: CategoryInput, required: true }) },
    resolve: async (_root, args, ctx) => createCategory(await asAdmin(ctx), args.input),
  }),
  updateCategory: t.field({
    type: CategoryType,
    description: 'Admin: renames, moves or re-orders a category (all three fields are set).',
    authScopes: { admin: true },
    args: { id: t.arg.int({ required: true }), input: t.arg({ type: CategoryInput, required: true }) },
    resolve: async (_root, args, ctx) => updateCategory(await asAdmin(ctx), args),
  }),
  deleteCategory: t.boolean({
    description: 'Admin: deletes a category; refused (VALIDATION_FAILED) while items or sub-categories use it.',
    authScopes: { admin: true },
    args: { id: t.arg.int({ required: true }) },
    resolve: async (_root, args, ctx) => deleteCategory(await asAdmin(ctx), args.id),
  }),
}));
