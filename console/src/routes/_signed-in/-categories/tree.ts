/**
 * The category tree as the screen shows it, from the flat `categories` list (ordered by `sortOrder`,
 * then `id`, as the service orders siblings): children per parent, the rows a keyboard walks through
 * (the visible ones, depth first), the paths a parent picker names, and the writes that put a
 * category one place up or down among its siblings. Pure, so test/console/category-tree.test.ts
 * holds it to the service's order.
 */

export interface CategoryNode {
  id: number;
  name: string;
  parentId: number | null;
  sortOrder: number;
}

export interface Tree {
  byId: ReadonlyMap<number, CategoryNode>;
  /** Each parent's children in the service's order; `null`: the top level. */
  children: ReadonlyMap<number | null, readonly CategoryNode[]>;
}

/** A row of the visible tree: the category, its depth (1 = top level) and its place among its siblings. */
export interface VisibleRow {
  node: CategoryNode;
  level: number;
  position: number;
  siblings: number;
  hasChildren: boolean;
}

const bySortOrder = (a: CategoryNode, b: CategoryNode) => a.sortOrder - b.sortOrder || a.id - b.id;

export function buildTree(categories: readonly CategoryNode[]): Tree {
  const byId = new Map(categories.map((c) => [c.id, c]));
  const children = new Map<number | null, CategoryNode[]>();
  for (const category of [...categories].sort(bySortOrder)) {
    // A parent that is not in the list (it cannot be, but a list read mid-change might): top level.
    const parent = category.parentId !== null && byId.has(category.parentId) ? category.parentId : null;
    const list = children.get(parent) ?? [];
    list.push(category);
    children.set(parent, list);
  }
  return { byId, children };
}

export const childrenOf = (tree: Tree, parentId: number | null): readonly CategoryNode[] =>
  tree.children.get(parentId) ?? [];

/** The rows shown, depth first: a category's children only while it is expanded. */
export function visibleRows(tree: Tree, expanded: ReadonlySet<number>): VisibleRow[] {
  const rows: VisibleRow[] = [];
  const walk = (parentId: number | null, level: number) => {
    const siblings = childrenOf(tree, parentId);
    siblings.forEach((node, index) => {
      const hasChildren = childrenOf(tree, node.id).length > 0;
      rows.push({ node, level, position: index + 1, siblings: siblings.length, hasChildren });
      if (hasChildren && expanded.has(node.id)) walk(node.id, level + 1);
    });
  };
  walk(null, 1);
  return rows;
}

/** The category and every category above it, top level first. */
export function ancestry(tree: Tree, id: number): CategoryNode[] {
  const path: CategoryNode[] = [];
  const seen = new Set<number>();
  for (let node = tree.byId.get(id); node && !seen.has(node.id); node = parentOf(tree, node)) {
    seen.add(node.id);
    path.unshift(node);
  }
  return path;
}

const parentOf = (tree: Tree, node: CategoryNode) =>
  node.parentId === null ? undefined : tree.byId.get(node.parentId);

/** `Shoes › Running`: a category named by its path, as a parent picker lists it. */
export const pathName = (tree: Tree, id: number, separator = ' › '): string =>
  ancestry(tree, id)
    .map((c) => c.name)
    .join(separator);

/** The category and all below it: none of them may become its parent. */
export function subtreeIds(tree: Tree, id: number): Set<number> {
  const ids = new Set<number>([id]);
  const stack = [id];
  while (stack.length) {
    for (const child of childrenOf(tree, stack.pop()!)) {
      if (ids.has(child.id)) continue;
      ids.add(child.id);
      stack.push(child.id);
    }
  }
  return ids;
}

/** Every category that may become `id`'s parent, in tree order (depth first). */
export function possibleParents(tree: Tree, id: number): CategoryNode[] {
  const excluded = subtreeIds(tree, id);
  return visibleRows(tree, new Set(tree.byId.keys()))
    .map((row) => row.node)
    .filter((node) => !excluded.has(node.id));
}

/** One `updateCategory` to send: every field, as the mutation sets all three. */
export interface CategoryWrite {
  id: number;
  name: string;
  parentId: number | null;
  sortOrder: number;
}

/**
 * The writes that move `id` one place up (-1) or down (+1) among its siblings: the siblings numbered
 * 0, 1, 2 … in their new order, and a write for each whose number changes (two, once the numbers are
 * already in order; more the first time, when siblings share a number). Empty at either end.
 */
export function reorderWrites(tree: Tree, id: number, step: -1 | 1): CategoryWrite[] {
  const node = tree.byId.get(id);
  if (!node) return [];
  const siblings = [...childrenOf(tree, node.parentId !== null && tree.byId.has(node.parentId) ? node.parentId : null)];
  const from = siblings.findIndex((s) => s.id === id);
  const to = from + step;
  if (from < 0 || to < 0 || to >= siblings.length) return [];
  [siblings[from], siblings[to]] = [siblings[to]!, siblings[from]!];
  return siblings
    .map((s, index) => ({ id: s.id, name: s.name, parentId: s.parentId, sortOrder: index }))
    .filter((write) => write.sortOrder !== tree.byId.get(write.id)!.sortOrder);
}

/** The sort order that puts a category last under `parentId` (after every present child). */
export function lastSortOrder(tree: Tree, parentId: number | null, except?: number): number {
  const others = childrenOf(tree, parentId).filter((c) => c.id !== except);
  return others.length ? Math.max(...others.map((c) => c.sortOrder)) + 1 : 0;
}
