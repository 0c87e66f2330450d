/**
 * The categories screen's tree model (console/src/routes/_signed-in/-categories/tree.ts): siblings in
 * the service's order (sortOrder, then id), the rows a keyboard walks, the parents a category may move
 * under, and the writes of a reorder — two once the numbers are in order, every sibling whose number
 * changes the first time (when siblings share a number, as created ones may).
 */
import { describe, expect, it } from 'vitest';
import {
  buildTree,
  type CategoryNode,
  lastSortOrder,
  pathName,
  possibleParents,
  reorderWrites,
  visibleRows,
} from '../../console/src/routes/_signed-in/-categories/tree.ts';

const node = (id: number, name: string, parentId: number | null, sortOrder = 0): CategoryNode => ({
  id,
  name,
  parentId,
  sortOrder,
});

// Shoes (Running, Boots, Trail — all at 0), Clothing; Running holds Spikes.
const CATEGORIES = [
  node(5, 'Clothing', null, 1),
  node(2, 'Running', 1),
  node(1, 'Shoes', null, 0),
  node(4, 'Trail', 1),
  node(3, 'Boots', 1),
  node(6, 'Spikes', 2),
];

describe('the category tree model', () => {
  it('when built, then siblings are in sortOrder then id order, and rows are depth first while open', () => {
    const tree = buildTree(CATEGORIES);
    const all = visibleRows(tree, new Set([1, 2, 5]));
    expect(all.map((r) => `${'  '.repeat(r.level - 1)}${r.node.name} ${r.position}/${r.siblings}`)).toEqual([
      'Shoes 1/2',
      '  Running 1/3',
      '    Spikes 1/1',
      '  Boots 2/3',
      '  Trail 3/3',
      'Clothing 2/2',
    ]);
    expect(visibleRows(tree, new Set()).map((r) => r.node.name)).toEqual(['Shoes', 'Clothing']);
    expect(pathName(tree, 6)).toBe('Shoes › Running › Spikes');
  });

  it('when a category moves, then it may go under anything but itself and what is below it, last among its new siblings', () => {
    const tree = buildTree(CATEGORIES);
    expect(possibleParents(tree, 2).map((c) => c.name)).toEqual(['Shoes', 'Boots', 'Trail', 'Clothing']);
    expect(lastSortOrder(tree, 1)).toBe(1);
    expect(lastSortOrder(tree, 5)).toBe(0);
    expect(lastSortOrder(tree, null, 5)).toBe(1);
  });

  it('when a category moves up or down, then the siblings are numbered in their new order and only changed numbers are written', () => {
    const tree = buildTree(CATEGORIES);
    // First time: Running, Boots, Trail share 0 → Boots up: Boots 0, Running 1, Trail 2 (Boots keeps its 0).
    expect(reorderWrites(tree, 3, -1)).toEqual([
      { id: 2, name: 'Running', parentId: 1, sortOrder: 1 },
      { id: 4, name: 'Trail', parentId: 1, sortOrder: 2 },
    ]);
    const numbered = buildTree(CATEGORIES.map((c) => (c.parentId === 1 ? { ...c, sortOrder: c.id - 2 } : c)));
    // Running 0, Boots 1, Trail 2 → Trail up swaps two.
    expect(reorderWrites(numbered, 4, -1)).toEqual([
      { id: 4, name: 'Trail', parentId: 1, sortOrder: 1 },
      { id: 3, name: 'Boots', parentId: 1, sortOrder: 2 },
    ]);
    expect(reorderWrites(numbered, 2, -1)).toEqual([]);
    expect(reorderWrites(numbered, 4, 1)).toEqual([]);
    expect(reorderWrites(tree, 99, 1)).toEqual([]);
  });
});
