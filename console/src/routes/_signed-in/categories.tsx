/**
 * Categories (contract §15): the category tree — create (top level or under the selected one),
 * rename, move under another parent ("Move to…"), reorder among siblings, delete — by mouse and by
 * keyboard alone. The tree is a WAI-ARIA tree (-categories/category-tree.tsx) whose focused row is the
 * one the actions apply to; each write's outcome is said in a status line. Writes only for roles with
 * catalogWrite; every admin reads.
 */
import { Trans, useLingui } from '@lingui/react/macro';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { createFileRoute } from '@tanstack/react-router';
import { useCallback, useId, useMemo, useState } from 'react';
import { mayDo } from '../../auth/roles.ts';
import { ApiError } from '../../gql/errors.ts';
import { request } from '../../gql/request.ts';
import { ConfirmDialog } from '../../ui/confirm-dialog.tsx';
import { PageShell } from '../../ui/page-shell.tsx';
import {
  CATEGORY_LIST_KEY,
  CreateCategory,
  categoriesQuery,
  DeleteCategory,
  UpdateCategory,
} from './-categories/categories.gql.ts';
import { MoveDialog, NameDialog } from './-categories/category-dialogs.tsx';
import { CategoryTree, type TreeCommand } from './-categories/category-tree.tsx';
import { buildTree, childrenOf, lastSortOrder, pathName, reorderWrites, type Tree } from './-categories/tree.ts';

export const Route = createFileRoute('/_signed-in/categories')({
  staticData: { screen: 'categories' },
  component: CategoriesScreen,
});

type DialogState =
  | { kind: 'create'; parentId: number | null }
  | { kind: 'rename'; id: number }
  | { kind: 'move'; id: number }
  | { kind: 'delete'; id: number };

type Write =
  | { kind: 'create'; name: string; parentId: number | null }
  | { kind: 'rename'; id: number; name: string }
  | { kind: 'move'; id: number; parentId: number | null }
  | { kind: 'reorder'; id: number; step: -1 | 1 }
  | { kind: 'delete'; id: number };

/** Sends one write (a reorder may take several updates), answering the category to focus next. */
async function send(tree: Tree, write: Write): Promise<number | null> {
  switch (write.kind) {
    case 'create': {
      const sortOrder = lastSortOrder(tree, write.parentId);
      const { createCategory } = await request(CreateCategory, {
        input: { name: write.name, parentId: write.parentId, sortOrder },
      });
      return createCategory.id;
    }
    case 'rename': {
      const node = tree.byId.get(write.id)!;
      await request(UpdateCategory, {
        id: write.id,
        input: { name: write.name, parentId: node.parentId, sortOrder: node.sortOrder },
      });
      return write.id;
    }
    case 'move': {
      const node = tree.byId.get(write.id)!;
      if (node.parentId === write.parentId) return write.id;
      await request(UpdateCategory, {
        id: write.id,
        input: { name: node.name, parentId: write.parentId, sortOrder: lastSortOrder(tree, write.parentId, write.id) },
      });
      return write.id;
    }
    case 'reorder': {
      // One at a time, in order: each is a write of its own (audited), and the last leaves the order whole.
      for (const { id, ...input } of reorderWrites(tree, write.id, write.step)) {
        await request(UpdateCategory, { id, input });
      }
      return write.id;
    }
    case 'delete': {
      await request(DeleteCategory, { id: write.id });
      // Focus goes to the next sibling, else the previous one, else the parent.
      const node = tree.byId.get(write.id)!;
      const siblings = childrenOf(tree, node.parentId);
      const index = siblings.findIndex((s) => s.id === write.id);
      return siblings[index + 1]?.id ?? siblings[index - 1]?.id ?? node.parentId;
    }
  }
}

function CategoriesScreen() {
  const { t } = useLingui();
  const { admin } = Route.useRouteContext();
  const canWrite = mayDo(admin.role, 'catalogWrite');
  const queryClient = useQueryClient();
  const helpId = useId();
  const selectedId = useId();

  const list = useQuery(categoriesQuery);
  const tree = useMemo(() => buildTree(list.data?.categories ?? []), [list.data]);

  const [collapsed, setCollapsed] = useState<ReadonlySet<number>>(new Set());
  const [focusedId, setFocusedId] = useState<number | null>(null);
  const [focusRequest, setFocusRequest] = useState<number | null>(null);
  const [announcement, setAnnouncement] = useState('');
  const [dialog, setDialog] = useState<{ state: DialogState; open: boolean; seq: number } | null>(null);

  const focused = focusedId !== null ? tree.byId.get(focusedId) : undefined;
  // The row the actions apply to: the focused one, else the first (the tree's tab stop).
  const selected = focused ?? childrenOf(tree, null)[0];

  const toggle = useCallback((id: number, open: boolean) => {
    setCollapsed((previous) => {
      const next = new Set(previous);
      if (open) next.delete(id);
      else next.add(id);
      return next;
    });
  }, []);
  const showUnder = (parentId: number | null) => {
    if (parentId !== null) toggle(parentId, true);
  };

  const save = useMutation({
    mutationFn: (write: Write) => send(tree, write),
    onSuccess: async (focusNext, write) => {
      // The tree before the write names what changed; the list read again shows it.
      const before = tree;
      await queryClient.invalidateQueries({ queryKey: CATEGORY_LIST_KEY });
      const name = (id: number) => before.byId.get(id)?.name ?? '';
      switch (write.kind) {
        case 'create': {
          showUnder(write.parentId);
          const created = write.name.trim();
          setAnnouncement(t`${created} created.`);
          break;
        }
        case 'rename': {
          const newName = write.name.trim();
          setAnnouncement(t`Renamed to ${newName}.`);
          break;
        }
        case 'move': {
          showUnder(write.parentId);
          const moved = name(write.id);
          const parent = write.parentId === null ? '' : pathName(before, write.parentId);
          setAnnouncement(
            before.byId.get(write.id)?.parentId === write.parentId
              ? t`${moved} stays where it is.`
              : write.parentId === null
                ? t`${moved} moved to the top level.`
                : t`${moved} moved under ${parent}.`,
          );
          break;
        }
        case 'reorder': {
          const moved = name(write.id);
          const node = before.byId.get(write.id)!;
          const siblings = childrenOf(before, node.parentId);
          const position = siblings.findIndex((s) => s.id === write.id) + 1 + write.step;
          const count = siblings.length;
          setAnnouncement(
            write.step < 0
              ? t`${moved} moved up: ${position} of ${count}.`
              : t`${moved} moved down: ${position} of ${count}.`,
          );
          break;
        }
        case 'delete': {
          const deleted = name(write.id);
          setAnnouncement(t`${deleted} deleted.`);
          break;
        }
      }
      setDialog((d) => (d ? { ...d, open: false } : d));
      if (focusNext !== null) {
        setFocusedId(focusNext);
        setFocusRequest(focusNext);
      }
    },
  });

  const open = (state: DialogState) => {
    save.reset();
    setDialog((d) => ({ state, open: true, seq: (d?.seq ?? 0) + 1 }));
  };
  const close = () => setDialog((d) => (d ? { ...d, open: false } : d));

  const reorder = (id: number, step: -1 | 1) => {
    if (save.isPending) return;
    const node = tree.byId.get(id);
    if (!node) return;
    if (reorderWrites(tree, id, step).length === 0) {
      const name = node.name;
      setAnnouncement(step < 0 ? t`${name} is already first.` : t`${name} is already last.`);
      return;
    }
    save.mutate({ kind: 'reorder', id, step });
  };

  const command = (what: TreeCommand, id: number) => {
    if (save.isPending) return;
    if (what === 'rename') open({ kind: 'rename', id });
    else if (what === 'create') open({ kind: 'create', parentId: id });
    else if (what === 'delete') open({ kind: 'delete', id });
    else reorder(id, what === 'moveUp' ? -1 : 1);
  };

  const state = dialog?.state;
  const seq = dialog?.seq ?? 0;
  const dialogOpen = dialog?.open ?? false;
  const dialogNode = state && state.kind !== 'create' ? tree.byId.get(state.id) : undefined;
  const createParent = state?.kind === 'create' && state.parentId !== null ? state.parentId : null;
  const dialogError = dialog?.open ? save.error : null;
  const selectedPath = selected ? pathName(tree, selected.id) : '';
  const dialogName = dialogNode?.name ?? '';
  const parentPath = createParent === null ? '' : pathName(tree, createParent);

  return (
    <PageShell
      title={t`Categories`}
      actions={
        canWrite && (
          <button type="button" className="button primary" onClick={() => open({ kind: 'create', parentId: null })}>
            <Trans>New top-level category</Trans>
          </button>
        )
      }
    >
      <p id={helpId} className="muted hint keys-help">
        {canWrite ? (
          <Trans>
            Keys: ↑ ↓ move between categories, → ← open and close, Home and End go to the first and last. Enter or F2
            renames, Alt+↑ and Alt+↓ move the category up or down among its siblings, Insert adds a sub-category, Delete
            deletes.
          </Trans>
        ) : (
          <Trans>
            Keys: ↑ ↓ move between categories, → ← open and close, Home and End go to the first and last, Enter opens or
            closes.
          </Trans>
        )}
      </p>

      {list.isPending && (
        <p className="result-line">
          <Trans>Loading categories…</Trans>
        </p>
      )}
      {list.isError && (
        <p className="form-error" role="alert">
          {list.error.message}
        </p>
      )}
      {list.data && tree.byId.size === 0 && (
        <p className="notice">
          <Trans>No categories yet.</Trans>
        </p>
      )}

      {tree.byId.size > 0 && (
        <div className="category-layout">
          <CategoryTree
            tree={tree}
            collapsed={collapsed}
            onToggle={toggle}
            focusedId={focusedId}
            onFocusChange={setFocusedId}
            onCommand={canWrite ? command : undefined}
            focusRequest={focusRequest}
            onFocusDone={() => setFocusRequest(null)}
            describedBy={helpId}
          />
          {canWrite && selected && (
            <section className="category-actions" aria-labelledby={selectedId}>
              <h2 id={selectedId} className="selected-category">
                <Trans>Selected: {selectedPath}</Trans>
              </h2>
              <div className="button-row">
                <button
                  type="button"
                  className="button"
                  onClick={() => open({ kind: 'create', parentId: selected.id })}
                >
                  <Trans>New sub-category</Trans>
                </button>
                <button type="button" className="button" onClick={() => open({ kind: 'rename', id: selected.id })}>
                  <Trans>Rename</Trans>
                </button>
                <button type="button" className="button" onClick={() => open({ kind: 'move', id: selected.id })}>
                  <Trans>Move to…</Trans>
                </button>
                <button
                  type="button"
                  className="button"
                  aria-keyshortcuts="Alt+ArrowUp"
                  disabled={save.isPending}
                  onClick={() => reorder(selected.id, -1)}
                >
                  <Trans>Move up</Trans>
                </button>
                <button
                  type="button"
                  className="button"
                  aria-keyshortcuts="Alt+ArrowDown"
                  disabled={save.isPending}
                  onClick={() => reorder(selected.id, 1)}
                >
                  <Trans>Move down</Trans>
                </button>
                <button
                  type="button"
                  className="button danger"
                  aria-keyshortcuts="Delete"
                  onClick={() => open({ kind: 'delete', id: selected.id })}
                >
                  <Trans>Delete</Trans>
                </button>
              </div>
            </section>
          )}
        </div>
      )}

      <p role="status" className="announcement">
        {announcement}
      </p>
      {save.isError && !dialog?.open && (
        <p className="form-error" role="alert">
          {save.error.message}
        </p>
      )}

      {state && (state.kind === 'create' || state.kind === 'rename') && (
        <NameDialog
          key={seq}
          open={dialogOpen}
          title={
            state.kind === 'rename'
              ? t`Rename ${dialogName}`
              : createParent === null
                ? t`New top-level category`
                : t`New category under ${parentPath}`
          }
          submitLabel={state.kind === 'rename' ? t`Rename` : t`Create`}
          initial={state.kind === 'rename' ? (dialogNode?.name ?? '') : ''}
          busy={save.isPending}
          error={dialogError}
          onCancel={close}
          onSubmit={(name) =>
            save.mutate(
              state.kind === 'rename'
                ? { kind: 'rename', id: state.id, name }
                : { kind: 'create', name, parentId: createParent },
            )
          }
        />
      )}
      {state?.kind === 'move' && (
        <MoveDialog
          key={seq}
          open={dialogOpen}
          tree={tree}
          id={state.id}
          busy={save.isPending}
          error={dialogError}
          onCancel={close}
          onSubmit={(parentId) => save.mutate({ kind: 'move', id: state.id, parentId })}
        />
      )}
      {state?.kind === 'delete' && (
        <ConfirmDialog
          key={seq}
          open={dialogOpen}
          title={t`Delete ${dialogName}?`}
          confirmLabel={t`Delete`}
          destructive
          busy={save.isPending}
          onCancel={close}
          onConfirm={() => save.mutate({ kind: 'delete', id: state.id })}
        >
          <p>
            <Trans>A category can be deleted only when no item and no sub-category uses it.</Trans>
          </p>
          {dialogError && <DeleteRefusal error={dialogError} name={dialogName} />}
        </ConfirmDialog>
      )}
    </PageShell>
  );
}

/** The service's reason for refusing a delete (VALIDATION_FAILED on `id`: "is still used by 4 item(s)"). */
function DeleteRefusal({ error, name }: { error: Error; name: string }) {
  const refused = error instanceof ApiError && error.code === 'VALIDATION_FAILED' && error.fieldProblems.length > 0;
  const problem = refused ? error.fieldProblems.map((p) => p.message).join('; ') : error.message;
  return (
    <p className="form-error" role="alert">
      {refused ? (
        <Trans>
          Not deleted: {name} {problem}.
        </Trans>
      ) : (
        problem
      )}
    </p>
  );
}
