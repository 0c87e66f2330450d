/**
 * Admin rules for the category tree (contract §5): a parent must exist and may not be the category
 * itself or one of its descendants; a category in use (items or sub-categories) cannot be deleted.
 */
import { isForeignKeyViolation, isRecordMissing } from '../db/prisma-errors.ts';
import { type AppError, notFound, validationFailed } from '../errors/app-error.ts';
import type { Category } from '../generated/prisma/client.ts';
import type { RequestContext } from '../request-context.ts';
import { catalogWrite, type Tx } from './catalog-write.ts';
import type { CategoryInput } from './category.schema.ts';

const CREATED = { action: 'category.create', idOf: (c: Category) => c.id } as const;
// A rename or a move changes the category path of every item below it.
const UPDATED = {
  action: 'category.update',
  idOf: (c: Category) => c.id,
  search: (c: Category) => ({ categoryTree: c.id }),
} as const;
const DELETED = { action: 'category.delete', idOf: (id: number) => id } as const;

const parentError = (message: string) => validationFailed([{ field: 'parentId', message }]);

/** Checks the new parent of category `id` (undefined for a new category): it exists and is no descendant. */
async function assertValidParent(tx: Tx, parentId: number | null, id?: number): Promise<void> {
  if (parentId === null) return;
  if (parentId === id) throw parentError('must not be the category itself');
  // Walk up from the proposed parent; meeting `id` on the way means a cycle.
  const ancestors = await tx.$queryRaw<{ id: number }[]>`
    WITH RECURSIVE up AS (
      SELECT id, parent_id FROM categories WHERE id = ${parentId}
      UNION SELECT c.id, c.parent_id FROM categories c JOIN up ON c.id = up.parent_id)
    SELECT id FROM up`;
  if (ancestors.length === 0) throw parentError('is not an existing category');
  if (id !== undefined && ancestors.some((a) => a.id === id))
    throw parentError('must not be one of its own sub-categories');
}

export function createCategory(ctx: RequestContext, input: CategoryInput): Promise<Category> {
  return catalogWrite(ctx, CREATED, async (tx) => {
    await assertValidParent(tx, input.parentId);
    return tx.category.create({ data: input });
  });
}

/** Sets all three fields (an omitted parent moves the category to the top level). */
export function updateCategory(ctx: RequestContext, id: number, input: CategoryInput): Promise<Category> {
  return catalogWrite(ctx, { ...UPDATED, id }, async (tx) => {
    const exists = await tx.category.findUnique({ where: { id }, select: { id: true } });
    if (!exists) throw notFound('category');
    await assertValidParent(tx, input.parentId, id);
    return tx.category.update({ where: { id }, data: input });
  });
}

/** Deletes an unused category; one with items or sub-categories is refused with the counts. */
export async function deleteCategory(ctx: RequestContext, id: number): Promise<true> {
  try {
    await catalogWrite(ctx, { ...DELETED, id }, async (tx) => {
      const category = await tx.category.findUnique({
        where: { id },
        select: { _count: { select: { items: true, children: true } } },
      });
      if (!category) throw notFound('category');
      const { items, children } = category._count;
      if (items || children) throw inUse(items, children);
      await tx.category.delete({ where: { id } });
      return id;
    });
  } catch (err) {
    // An item or sub-category added since our count (the foreign keys restrict deletion).
    if (isForeignKeyViolation(err)) throw inUse(1, 0);
    if (isRecordMissing(err)) throw notFound('category');
    throw err;
  }
  return true;
}

function inUse(items: number, children: number): AppError {
  const uses = [items && `${items} item(s)`, children && `${children} sub-categories`].filter(Boolean).join(' and ');
  return validationFailed([{ field: 'id', message: `is still used by ${uses}` }]);
}
