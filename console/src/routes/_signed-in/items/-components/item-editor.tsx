/**
 * The item editor (contract §15): every field of §4.4 and §12 — name, handle, description, category,
 * price, stock, status and schedule, images, SKUs — for a new item or an existing one. Saving sends
 * the version the admin started from (`expectedVersion`); when someone else changed the item
 * meanwhile the service answers VERSION_CONFLICT and a dialog offers Reload (drop my edits, show
 * theirs) or Overwrite (save mine over theirs). The service's field problems show under their
 * fields. An admin who may not change items sees the same form, read only.
 */
import { Trans, useLingui } from '@lingui/react/macro';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Link, useNavigate } from '@tanstack/react-router';
import { type FormEvent, type ReactNode, useEffect, useId, useRef, useState } from 'react';
import { PERMISSIONS } from '../../../../auth/roles.ts';
import { usePermission } from '../../../../auth/use-permission.ts';
import { ApiError, problemsByField } from '../../../../gql/errors.ts';
import { readFragment } from '../../../../gql/graphql.ts';
import { request } from '../../../../gql/request.ts';
import { ConfirmDialog } from '../../../../ui/confirm-dialog.tsx';
import { PageShell } from '../../../../ui/page-shell.tsx';
import { useRoleName } from '../../../../ui/role-name.ts';
import { ITEM_STATUSES, type ItemStatus, useStatusName } from '../../../../ui/status-name.ts';
import { TextField } from '../../../../ui/text-field.tsx';
import { AdminItem, CreateItem, DeleteItem, type EditedItem, ItemFields, UpdateItem } from '../-items.gql.ts';
import { CategorySelect } from './category-select.tsx';
import { ImageList } from './image-list.tsx';
import { draftOf, draftProblems, emptyDraft, type ItemDraft, inputOf, timeZone } from './item-draft.ts';
import { SkuTable } from './sku-table.tsx';

/** The query of one item, as the editor and the list's cache key it (`[entity, 'detail', id]`). */
export const itemQuery = (id: number) =>
  ({
    queryKey: ['item', 'detail', id],
    queryFn: async ({ signal }: { signal: AbortSignal }) => {
      const { adminItem } = await request(AdminItem, { id }, signal);
      return adminItem ? readFragment(ItemFields, adminItem) : null;
    },
  }) as const;

export function ItemEditor({ item }: { item?: EditedItem }) {
  const { t } = useLingui();
  const statusName = useStatusName();
  const roleName = useRoleName();
  const mayWrite = usePermission('catalogWrite');
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const formId = useId();
  const form = useRef<HTMLFormElement>(null);
  const [draft, setDraft] = useState<ItemDraft>(() => (item ? draftOf(item) : emptyDraft()));
  const [version, setVersion] = useState(item?.version);
  const [localProblems, setLocalProblems] = useState<Record<string, string>>({});
  const [saved, setSaved] = useState('');
  const [conflict, setConflict] = useState<number | null>(null);
  const [deleting, setDeleting] = useState(false);
  // After a refused save: the first field with a problem gets the focus, once the problems show.
  const [focusProblem, setFocusProblem] = useState(0);
  useEffect(() => {
    if (focusProblem) form.current?.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus();
  }, [focusProblem]);

  const change = (fields: Partial<ItemDraft>) => {
    setSaved('');
    setDraft((prev) => ({ ...prev, ...fields }));
    // A field the admin changed is no longer wrong as far as the form knows; the next save says again.
    setLocalProblems((prev) => Object.fromEntries(Object.entries(prev).filter(([field]) => !(field in fields))));
  };

  const save = useMutation({
    mutationFn: async (expectedVersion: number | undefined): Promise<EditedItem> => {
      const input = inputOf(draft);
      if (!item) return readFragment(ItemFields, (await request(CreateItem, { input })).createItem);
      const { updateItem } = await request(UpdateItem, {
        id: item.id,
        input,
        expectedVersion: expectedVersion ?? null,
      });
      return readFragment(ItemFields, updateItem);
    },
    onSuccess: async (result) => {
      setConflict(null);
      queryClient.setQueryData(itemQuery(result.id).queryKey, result);
      await queryClient.invalidateQueries({ queryKey: ['item', 'list'] });
      if (!item) {
        void navigate({ to: '/items/$id', params: { id: String(result.id) }, replace: true });
        return;
      }
      setDraft(draftOf(result));
      setVersion(result.version);
      setSaved(t`Saved. This is version ${result.version}.`);
    },
    onError: (error) => {
      if (error instanceof ApiError && error.code === 'VERSION_CONFLICT') {
        setConflict(Number(error.extensions.currentVersion) || null);
        return;
      }
      setConflict(null);
      if (error instanceof ApiError && error.code === 'VALIDATION_FAILED') {
        setFocusProblem((n) => n + 1);
      }
    },
  });

  const remove = useMutation({
    mutationFn: () => request(DeleteItem, { id: item!.id, expectedVersion: version ?? null }),
    onSuccess: async () => {
      setDeleting(false);
      queryClient.removeQueries({ queryKey: itemQuery(item!.id).queryKey });
      await queryClient.invalidateQueries({ queryKey: ['item', 'list'] });
      void navigate({ to: '/items' });
    },
    onError: () => setDeleting(false),
  });

  /** Drops the admin's edits and shows the item as it is now. */
  const reload = async () => {
    if (!item) return;
    const fresh = await queryClient.fetchQuery({ ...itemQuery(item.id), staleTime: 0 });
    setConflict(null);
    save.reset();
    setLocalProblems({});
    if (!fresh) return void navigate({ to: '/items' });
    setDraft(draftOf(fresh));
    setVersion(fresh.version);
    setSaved(t`Reloaded: this is version ${fresh.version}, as saved by the other change.`);
  };

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!mayWrite) return;
    setSaved('');
    const problems = draftProblems(draft, {
      required: t`Enter a name.`,
      money: t`Enter an amount in yuan, such as 19.90.`,
      stock: t`Enter a whole number, 0 or more.`,
      category: t`Choose a category.`,
    });
    setLocalProblems(problems);
    if (Object.keys(problems).length > 0) {
      save.reset();
      setFocusProblem((n) => n + 1);
      return;
    }
    save.mutate(version);
  };

  const problems = { ...problemsByField(save.error), ...localProblems };
  const problemCount = Object.keys(problems).length;
  const otherError =
    save.error instanceof ApiError && !['VALIDATION_FAILED', 'VERSION_CONFLICT'].includes(save.error.code)
      ? save.error.message
      : remove.error?.message;
  const title = item ? t`Item: ${item.name}` : t`New item`;
  const zone = timeZone();
  const writers = PERMISSIONS.catalogWrite.map(roleName).join(' / ');

  if (!item && !mayWrite) {
    return (
      <PageShell title={title}>
        <p className="notice" role="alert">
          <Trans>Creating items needs the role {writers}.</Trans>
        </p>
      </PageShell>
    );
  }

  return (
    <PageShell
      title={title}
      actions={
        <Link to="/items" className="button">
          <Trans>Back to items</Trans>
        </Link>
      }
    >
      {!mayWrite && (
        <p className="notice">
          <Trans>You can look at this item; changing it needs the role {writers}.</Trans>
        </p>
      )}
      {problemCount > 0 && (
        <p className="form-error" role="alert">
          <Trans>Some fields need attention; each problem is said under its field.</Trans>
        </p>
      )}
      {otherError && (
        <p className="form-error" role="alert">
          {otherError}
        </p>
      )}
      <form ref={form} id={formId} className="item-editor" onSubmit={submit} noValidate>
        <fieldset disabled={!mayWrite} className="editor-body">
          <fieldset className="editor-section">
            <legend>
              <Trans>Details</Trans>
            </legend>
            <TextField
              label={t`Name`}
              value={draft.name}
              maxLength={200}
              required
              onChange={(e) => change({ name: e.target.value })}
              error={problems.name}
            />
            <TextField
              label={t`Handle`}
              value={draft.handle}
              maxLength={100}
              onChange={(e) => change({ handle: e.target.value })}
              error={problems.handle}
              placeholder={item ? undefined : t`Made from the name when left empty`}
            />
            <Described
              label={t`Description`}
              error={problems.description}
              render={(props) => (
                <textarea
                  {...props}
                  rows={5}
                  maxLength={5000}
                  value={draft.description}
                  onChange={(e) => change({ description: e.target.value })}
                />
              )}
            />
            <Described
              label={t`Category`}
              error={problems.categoryId}
              render={(props) => (
                <CategorySelect
                  {...props}
                  required
                  emptyLabel={t`Choose a category`}
                  value={draft.categoryId}
                  onChange={(e) => change({ categoryId: e.target.value })}
                />
              )}
            />
            <div className="field-pair">
              <TextField
                label={t`Price (yuan)`}
                inputMode="decimal"
                required
                value={draft.price}
                onChange={(e) => change({ price: e.target.value })}
                error={problems.price}
              />
              <TextField
                label={t`Stock`}
                inputMode="numeric"
                required
                value={draft.stock}
                onChange={(e) => change({ stock: e.target.value })}
                error={problems.stock}
              />
            </div>
          </fieldset>

          <fieldset className="editor-section">
            <legend>
              <Trans>Status and schedule</Trans>
            </legend>
            <Described
              label={t`Status`}
              error={problems.status}
              render={(props) => (
                <select
                  {...props}
                  value={draft.status}
                  onChange={(e) => change({ status: e.target.value as ItemStatus })}
                >
                  {ITEM_STATUSES.map((status) => (
                    <option key={status} value={status}>
                      {statusName(status)}
                    </option>
                  ))}
                </select>
              )}
            />
            <p className="muted hint">
              <Trans>
                An active item is in the shop from its publish time (none: at once) until its unpublish time (none: no
                end). Times are in your time zone, {zone}.
              </Trans>
            </p>
            <div className="field-pair">
              <TextField
                label={t`Publish at`}
                type="datetime-local"
                value={draft.publishAt}
                onChange={(e) => change({ publishAt: e.target.value })}
                error={problems.publishAt}
              />
              <TextField
                label={t`Unpublish at`}
                type="datetime-local"
                value={draft.unpublishAt}
                onChange={(e) => change({ unpublishAt: e.target.value })}
                error={problems.unpublishAt}
              />
            </div>
          </fieldset>

          <ImageList images={draft.images} onChange={(images) => change({ images })} errors={problems} />

          <SkuTable
            axes={draft.axes}
            skus={draft.skus}
            itemPrice={draft.price}
            onAxesChange={(axes) => change({ axes })}
            onSkusChange={(skus) => change({ skus })}
            errors={problems}
          />
        </fieldset>

        {mayWrite && (
          <div className="button-row editor-actions">
            <button type="submit" className="button primary" disabled={save.isPending} aria-busy={save.isPending}>
              {item ? <Trans>Save changes</Trans> : <Trans>Create item</Trans>}
            </button>
            {item && (
              <button type="button" className="button danger" onClick={() => setDeleting(true)}>
                <Trans>Delete item</Trans>
              </button>
            )}
          </div>
        )}
        <p role="status" className="done-line">
          {save.isPending ? t`Saving…` : saved}
        </p>
      </form>

      <ConfirmDialog
        open={conflict !== null}
        title={t`Someone else changed this item`}
        confirmLabel={t`Overwrite`}
        destructive
        busy={save.isPending}
        alternative={{ label: t`Reload`, onChoose: () => void reload() }}
        onConfirm={() => save.mutate(conflict ?? undefined)}
        onCancel={() => setConflict(null)}
      >
        <p>
          <Trans>
            You started from version {version}; the item is at version {conflict} now. Reload drops your edits and shows
            the item as it is now. Overwrite saves your edits over the other change. Cancel keeps your edits here
            without saving.
          </Trans>
        </p>
      </ConfirmDialog>

      {item && (
        <ConfirmDialog
          open={deleting}
          title={t`Delete this item?`}
          confirmLabel={t`Delete item`}
          destructive
          busy={remove.isPending}
          onConfirm={() => remove.mutate()}
          onCancel={() => setDeleting(false)}
        >
          <p>
            <Trans>
              It vanishes from the shop and from every list, with its SKUs and images. This cannot be undone.
            </Trans>
          </p>
        </ConfirmDialog>
      )}
    </PageShell>
  );
}

/** A labelled control that is not an `<input>` (textarea, select), with its error linked as TextField links it. */
function Described({
  label,
  error,
  render,
}: {
  label: string;
  error?: string;
  render: (props: { id: string; 'aria-invalid'?: true; 'aria-describedby'?: string }) => ReactNode;
}) {
  const id = useId();
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      {render({
        id,
        ...(error ? { 'aria-invalid': true as const, 'aria-describedby': `${id}-error` } : {}),
      })}
      {error && (
        <p id={`${id}-error`} className="field-error">
          {error}
        </p>
      )}
    </div>
  );
}
