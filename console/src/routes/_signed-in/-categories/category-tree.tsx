/**
 * The category tree as a WAI-ARIA tree (https://www.w3.org/WAI/ARIA/apg/patterns/treeview/): `tree`,
 * `treeitem` and `group` with `aria-level`, `aria-setsize`, `aria-posinset` and `aria-expanded`; one
 * tab stop (a roving tabindex on the focused row, which is also the selected one the actions apply
 * to). Keys: ↑ ↓ between visible rows, → opens or goes to the first child, ← closes or goes to the
 * parent, Home / End, a letter to the next name starting with it; and the writes a screen offers
 * (`onKey`): Enter or F2 rename (opens or closes a row where there is nothing to write), Alt+↑ / Alt+↓
 * reorder, Insert a new sub-category, Delete.
 */
import { useLingui } from '@lingui/react/macro';
import { type KeyboardEvent, useCallback, useEffect, useRef } from 'react';
import { type CategoryNode, childrenOf, type Tree, visibleRows } from './tree.ts';

/** What the screen does on a key the tree itself does not handle. */
export type TreeCommand = 'rename' | 'moveUp' | 'moveDown' | 'create' | 'delete';

interface CategoryTreeProps {
  tree: Tree;
  collapsed: ReadonlySet<number>;
  onToggle: (id: number, open: boolean) => void;
  focusedId: number | null;
  onFocusChange: (id: number) => void;
  /** A write asked for by key; undefined: a reader's tree (Enter opens and closes). */
  onCommand?: (command: TreeCommand, id: number) => void;
  /** Moves the keyboard focus to this row once it is shown (after a write), then calls back. */
  focusRequest: number | null;
  onFocusDone: () => void;
  describedBy: string;
}

export function CategoryTree({
  tree,
  collapsed,
  onToggle,
  focusedId,
  onFocusChange,
  onCommand,
  focusRequest,
  onFocusDone,
  describedBy,
}: CategoryTreeProps) {
  const { t } = useLingui();
  const rows = useRef(new Map<number, HTMLDivElement>());
  const expanded = new Set([...tree.byId.keys()].filter((id) => !collapsed.has(id)));
  const visible = visibleRows(tree, expanded);
  // The row with the tab stop: the focused one while it is shown, else the first.
  const tabStop = visible.some((r) => r.node.id === focusedId) ? focusedId : (visible[0]?.node.id ?? null);

  const focusRow = useCallback(
    (id: number) => {
      onFocusChange(id);
      rows.current.get(id)?.focus();
    },
    [onFocusChange],
  );

  useEffect(() => {
    if (focusRequest === null || !rows.current.has(focusRequest)) return;
    // After this commit's other effects: a dialog closing in the same commit gives focus back to what
    // opened it, and the row must take it after that.
    const timer = setTimeout(() => {
      const element = rows.current.get(focusRequest);
      element?.focus();
      element?.scrollIntoView({ block: 'nearest' });
      onFocusDone();
    });
    return () => clearTimeout(timer);
  });

  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    const index = visible.findIndex((r) => r.node.id === tabStop);
    const row = visible[index];
    if (!row) return;
    const { node } = row;
    const open = row.hasChildren && !collapsed.has(node.id);
    const handled = () => {
      event.preventDefault();
      event.stopPropagation();
    };
    if (event.altKey && (event.key === 'ArrowUp' || event.key === 'ArrowDown')) {
      if (onCommand) {
        handled();
        onCommand(event.key === 'ArrowUp' ? 'moveUp' : 'moveDown', node.id);
      }
      return;
    }
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    switch (event.key) {
      case 'ArrowDown': {
        handled();
        const next = visible[index + 1];
        if (next) focusRow(next.node.id);
        return;
      }
      case 'ArrowUp': {
        handled();
        const previous = visible[index - 1];
        if (previous) focusRow(previous.node.id);
        return;
      }
      case 'ArrowRight': {
        handled();
        if (!row.hasChildren) return;
        if (!open) onToggle(node.id, true);
        else focusRow(childrenOf(tree, node.id)[0]!.id);
        return;
      }
      case 'ArrowLeft': {
        handled();
        if (open) onToggle(node.id, false);
        else if (node.parentId !== null && tree.byId.has(node.parentId)) focusRow(node.parentId);
        return;
      }
      case 'Home': {
        handled();
        const first = visible[0];
        if (first) focusRow(first.node.id);
        return;
      }
      case 'End': {
        handled();
        const last = visible.at(-1);
        if (last) focusRow(last.node.id);
        return;
      }
      case 'Enter':
      case 'F2': {
        handled();
        if (onCommand) onCommand('rename', node.id);
        else if (row.hasChildren && event.key === 'Enter') onToggle(node.id, !open);
        return;
      }
      case 'Insert': {
        if (!onCommand) return;
        handled();
        onCommand('create', node.id);
        return;
      }
      case 'Delete': {
        if (!onCommand) return;
        handled();
        onCommand('delete', node.id);
        return;
      }
      default: {
        // Type-ahead: the next visible name that starts with the typed character.
        if (event.key.length !== 1 || event.key === ' ') return;
        const typed = event.key.toLocaleLowerCase();
        const after = [...visible.slice(index + 1), ...visible.slice(0, index + 1)];
        const match = after.find((r) => r.node.name.toLocaleLowerCase().startsWith(typed));
        if (match) {
          handled();
          focusRow(match.node.id);
        }
      }
    }
  };

  // Each row is a treeitem holding only its own name; its sub-categories' group follows it and is
  // owned by it (`aria-owns`), so a row's name and visible text are its own, not its whole subtree's.
  const renderLevel = (parentId: number | null, level: number) =>
    childrenOf(tree, parentId).map((node: CategoryNode, index, siblings) => {
      const kids = childrenOf(tree, node.id);
      const open = kids.length > 0 && !collapsed.has(node.id);
      const groupId = `category-${node.id}-group`;
      return (
        <div key={node.id} role="none" className="tree-node">
          {/* The tree's keys (handled on the tree) do what a click does: no key handler of the row's own. */}
          {/* biome-ignore lint/a11y/useKeyWithClickEvents: see above */}
          <div
            ref={(element) => {
              if (element) rows.current.set(node.id, element);
              else rows.current.delete(node.id);
            }}
            role="treeitem"
            className="tree-row"
            aria-level={level}
            aria-setsize={siblings.length}
            aria-posinset={index + 1}
            aria-expanded={kids.length > 0 ? open : undefined}
            aria-owns={open ? groupId : undefined}
            aria-selected={node.id === tabStop}
            tabIndex={node.id === tabStop ? 0 : -1}
            onFocus={() => onFocusChange(node.id)}
            onClick={(event) => {
              focusRow(node.id);
              if (kids.length > 0 && (event.target as HTMLElement).closest('.twisty')) onToggle(node.id, !open);
            }}
            onDoubleClick={(event) => {
              if (!(event.target as HTMLElement).closest('.twisty')) onCommand?.('rename', node.id);
            }}
          >
            <span
              className="twisty"
              aria-hidden="true"
              title={kids.length > 0 ? (open ? t`Close` : t`Open`) : undefined}
            >
              {kids.length > 0 ? (open ? '▾' : '▸') : ''}
            </span>
            <span className="tree-name">{node.name}</span>
          </div>
          {open && (
            // biome-ignore lint/a11y/useSemanticElements: a tree's group of rows (WAI-ARIA tree pattern), not a form's fieldset
            <div role="group" id={groupId}>
              {renderLevel(node.id, level + 1)}
            </div>
          )}
        </div>
      );
    });

  return (
    <div
      role="tree"
      className="category-tree"
      aria-label={t`Categories`}
      aria-describedby={describedBy}
      onKeyDown={onKeyDown}
    >
      {renderLevel(null, 1)}
    </div>
  );
}
